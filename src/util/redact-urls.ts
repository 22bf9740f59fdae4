import { isSecretName } from './secret-name.js';

/** Masks what replaces a credential in printed and stored text. */
export const REDACTED = '***';

/** A URL's user:password@ (the last `@` before the path ends it, as URL parsers read it). */
const USERINFO = /(\b[a-z][a-z\d+.-]*:\/\/)[^\s/?#"'<>]*@/gi;

/** One `name=value` of a query string; a `:` or `,` that ends it in prose (`…?key=K: refused`) is not its value. */
const QUERY_PARAMETER = /([?&;])([^=&#\s"'<>?;]+)=((?:[^&#\s"'<>;:,]|[:,](?!\s|$))+)/g;

/**
 * `text` with the credentials of every URL in it masked: the user and password
 * (`http://user:KEY@host` → `http://***@host`) and the values of secret-looking query parameters
 * (`?api_key=`, `?key=`, `?token=`, `?sig=`, …; see `isSecretName`). Messages, notices, failure rows
 * and lock files are read by more people than the one who typed the URL. Idempotent.
 */
export function redactUrls(text: string): string {
  if (!text.includes('@') && !text.includes('=')) return text;
  return text
    .replace(USERINFO, `$1${REDACTED}@`)
    .replace(QUERY_PARAMETER, (whole, separator: string, name: string) => (isSecretName(decodedName(name)) ? `${separator}${name}=${REDACTED}` : whole));
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
