import type { ConfigFileIssue } from '../../core/errors/config-file-error.js';

const WHOLE = /^\$\{([^${}]+)\}$/;
const EMBEDDED = /\$\{([^${}]+)\}/g;
/** OmegaConf's mark of a value that must be given (NeMo Gym's `ConfigMissingValuesError`). */
const MANDATORY = '???';

type Json = unknown;

/**
 * OmegaConf-style interpolation, as NeMo Gym's configs use it: `${policy_base_url}` (or a dotted path,
 * `${head_server.port}`) is the value at that path of the whole config, its type kept when the string
 * is nothing else; `${oc.env:NAME}` / `${oc.env:NAME,default}` reads the environment; inside longer
 * text each is written as text. A `???` left anywhere, a missing path, or a cycle is an issue.
 */
export function interpolateConfig(
  root: Record<string, Json>,
  env: Readonly<Record<string, string | undefined>>,
): { value: Record<string, Json>; issues: ConfigFileIssue[] } {
  const issues: ConfigFileIssue[] = [];
  const resolving: string[] = [];

  const expression = (text: string, at: string): Json => {
    if (text.startsWith('oc.env:')) {
      const [name = '', ...fallback] = text.slice('oc.env:'.length).split(',');
      const value = env[name.trim()] ?? (fallback.length > 0 ? fallback.join(',').trim() : undefined);
      if (value === undefined) issues.push({ path: at, expected: `the environment variable ${name.trim()} (\${${text}}), which is not set` });
      return value ?? '';
    }
    const path = text.trim();
    if (resolving.includes(path)) {
      issues.push({ path: at, expected: `a value, not a cycle: ${[...resolving, path].join(' → ')}` });
      return '';
    }
    const target = lookUp(root, path);
    if (!target.found) {
      issues.push({ path: at, expected: `a key "${path}" for \${${path}} to read; the config has none` });
      return '';
    }
    resolving.push(path);
    try {
      return walk(target.value, path);
    } finally {
      resolving.pop();
    }
  };

  const walk = (value: Json, at: string): Json => {
    if (typeof value === 'string') {
      if (value === MANDATORY) {
        issues.push({ path: at, expected: 'a value (??? marks one that must be given)' });
        return value;
      }
      const whole = WHOLE.exec(value);
      if (whole) return expression(whole[1]!, at);
      return value.replace(EMBEDDED, (_, inner: string) => {
        const resolved = expression(inner, at);
        return typeof resolved === 'object' && resolved !== null ? JSON.stringify(resolved) : String(resolved);
      });
    }
    if (Array.isArray(value)) return value.map((item, index) => walk(item, join(at, String(index))));
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, join(at, key))]));
    return value;
  };

  return { value: walk(root, '') as Record<string, Json>, issues: dedupe(issues) };
}

function lookUp(root: Json, path: string): { found: boolean; value?: Json } {
  let value = root;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return { found: false };
    value = (value as Record<string, Json>)[key];
  }
  return { found: true, value };
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** A value read through several references reports its problem once per place. */
function dedupe(issues: ConfigFileIssue[]): ConfigFileIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\n${issue.expected}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
