import { encodeParams, validateParams, type EndpointSpec, type ParamValue } from '@gateway/catalogue';

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

const HOW_TO_GET: Readonly<Record<string, string>> = {
  advertiser_id: 'an advertiser_id from /v1.3/oauth2/advertiser/get/ (call_endpoint, no parameters)',
  advertiser_ids: 'advertiser ids from /v1.3/oauth2/advertiser/get/ (call_endpoint, no parameters)',
  store_ids: 'a store_id from /v1.3/gmv_max/store/list/ (call_endpoint with advertiser_id)',
  ids: 'order ids from /order/202309/orders/search (data.orders[].id)',
};

/**
 * Checks suggested parameters against the catalogue before they are returned. Required parameters that were not
 * suggested are reported as missing rather than as errors (a question rarely names an advertiser id): they are
 * stood in for by the catalogue's examples so that every other rule, including the ones that depend on several
 * parameters, is still checked.
 */
export function checkSuggestion(endpoint: EndpointSpec, params: Record<string, ParamValue>): SuggestionCheck {
  const encoded = encodeParams(params);
  const missing: MissingParam[] = [];
  const filled = { ...encoded };
  for (const param of endpoint.params) {
    const required =
      param.required ||
      (param.requiredWhen !== undefined && encoded[param.requiredWhen.param] === param.requiredWhen.equals);
    if (!required || (encoded[param.name] !== undefined && encoded[param.name] !== '')) continue;
    missing.push({ name: param.name, howToGet: HOW_TO_GET[param.name] ?? `see describe_endpoint for ${param.name}` });
    filled[param.name] = encodeParams({ [param.name]: param.example as ParamValue })[param.name]!;
  }
  return { problems: validateParams(endpoint, filled), missing };
}
