import { z } from 'zod';

/** What HTTP lets into a header value: tab, printable ASCII and the rest of Latin-1. */
const NOT_IN_A_HEADER = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Why a text cannot be sent in an HTTP header (an API key goes out as `Authorization: Bearer …`), or
 * undefined when it can. A line break would end the header and start one of the text's choosing;
 * the HTTP client refuses it, and the other control characters, with an error that names no flag.
 * The text itself is never shown: it is a secret.
 */
export function headerValueProblem(text: string): string | undefined {
  if (/[\r\n]/.test(text)) return 'must not contain line breaks';
  const at = text.search(NOT_IN_A_HEADER);
  return at === -1 ? undefined : `must not contain control characters or characters beyond Latin-1 (character ${at + 1} is one)`;
}

/** Text sent in an HTTP header, checked with `headerValueProblem`. */
export const HeaderValue = z.string().superRefine((text, context) => {
  const problem = headerValueProblem(text);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});
