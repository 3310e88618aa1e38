import { escapeHtml } from '@gateway/errors';

/** Markup that is already safe (built by `html`), as opposed to text that still needs escaping. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Interpolated = string | number | SafeHtml | readonly SafeHtml[] | null | undefined;

/** Tagged template that escapes every interpolated string: pages never build markup by concatenation. */
export function html(strings: TemplateStringsArray, ...values: Interpolated[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    if (value instanceof SafeHtml) out += value.value;
    else if (Array.isArray(value)) out += value.map((item: SafeHtml) => item.value).join('');
    else if (value !== null && value !== undefined) out += escapeHtml(String(value));
    out += strings[i + 1]!;
  });
  return new SafeHtml(out);
}
