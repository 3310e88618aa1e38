import { encodeParams, validateParams, type EndpointSpec, type ParamValue } from '@gateway/catalogue';
import { suggestionPluginOf } from './plugin.registry';

export interface MissingParam {
  name: string;
  /** Where the assistant gets the value. */
  howToGet: string;
}

export interface SuggestionCheck {
  /** Problems of the values that were suggested (empty: every suggested value is valid). */
  problems: string[];
  /** Required parameters a question cannot supply; the assistant fills them in before calling. */
  missing: MissingParam[];
}

/**
 * Checks suggested parameters against the catalogue before they are returned. Required parameters that were not
 * suggested are reported as missing rather than as errors (a question rarely names an advertiser id): they are
 * stood in for by the catalogue's examples so that every other rule, including the ones that depend on several
 * parameters, is still checked.
 */
export function checkSuggestion(endpoint: EndpointSpec, params: Record<string, ParamValue>): SuggestionCheck {
  // Wire form for the endpoint (csv lists comma-joined, repeated ones as lists), but names the service owns stay in, so a suggestion that
  // sets one (an AI's access_token) is refused as not a parameter rather than silently dropped.
  const encoded = { ...encodeParams(params), ...encodeParams(params, endpoint) };
  const howToGet = suggestionPluginOf(endpoint.provider)?.howToGet ?? {};
  const missing: MissingParam[] = [];
  const filled = { ...encoded };
  for (const param of endpoint.params) {
    const required =
      param.required ||
      (param.requiredWhen !== undefined && encoded[param.requiredWhen.param] === param.requiredWhen.equals);
    if (!required || (encoded[param.name] !== undefined && encoded[param.name] !== '')) continue;
    missing.push({ name: param.name, howToGet: howToGet[param.name] ?? `see describe_endpoint for ${param.name}` });
    filled[param.name] = encodeParams({ [param.name]: param.example as ParamValue }, endpoint)[param.name]!;
  }
  return { problems: validateParams(endpoint, filled), missing };
}
