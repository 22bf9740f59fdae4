/**
 * Names that hold a credential: `api_key` and `*_api_key` (any case, `-` or camelCase alike),
 * `secret`, `password`, `credentials`, `authorization`, `token` and the credential kinds of `*_token`
 * (`hf_token`, `access_token`, …), and the short names query strings use (`key`, `sig`, `signature`).
 * Tokenizer settings (`max_tokens`, `eos_token`, `tokenizer`) are not credentials and do not match.
 */
const SECRET_NAME = new RegExp(
  [
    '^(?:key|sig|signature|auth|pwd)$',
    '(?:^|_)(?:api|secret|private|access)_?key$',
    '(?:^|_)(?:secret|password|passwd|credentials?|authorization|signature)$',
    '^(?:token|(?:.*_)?(?:hf|github|access|auth|api|bearer|oauth|refresh|session|security|id)_?token)$',
  ].join('|'),
);

/** Whether a config key or query parameter named `name` holds a credential. */
export function isSecretName(name: string): boolean {
  const snake = name
    .replace(/([a-z\d])([A-Z])/g, '$1_$2')
    .replaceAll('-', '_')
    .toLowerCase();
  return SECRET_NAME.test(snake);
}
