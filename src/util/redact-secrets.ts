import { REDACTED, redactUrls } from './redact-urls.js';
import { isSecretName } from './secret-name.js';

/**
 * A copy of a JSON-like tree with every credential masked: the value of each secret-named key
 * (`api_key`, `hf_token`, `password`, …; see `isSecretName`) whatever it holds, unless empty, and
 * the credentials of URLs in every string. For what is published or printed; the tree itself is
 * left as it was, for the code that needs the real values.
 */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return redactUrls(value);
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, isSecretName(key) && !isEmpty(item) ? REDACTED : redactSecrets(item)]));
}

/** Nothing to hide: and a client reading the tree can still tell that no key was set. */
const isEmpty = (value: unknown) => value === null || value === undefined || value === '';
