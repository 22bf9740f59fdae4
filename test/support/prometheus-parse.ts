/** One sample line of the Prometheus text format. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A metric family: its TYPE, its HELP, and its samples. */
export interface PromFamily {
  type: string;
  help: string;
  samples: PromSample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\["\\\\n])*",?)*)\\})? (\\S+)$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"/g;

/**
 * Parses the Prometheus text exposition format (0.0.4) strictly: every line a HELP, a TYPE or a sample
 * of the family declared before it (a histogram's `_bucket`, `_sum` and `_count` included), every value
 * a float; throws, naming the line, on anything else.
 */
export function parsePrometheusText(text: string): Map<string, PromFamily> {
  const families = new Map<string, PromFamily>();
  let current: { name: string; family: PromFamily } | undefined;
  text.split('\n').forEach((line, index) => {
    const where = `line ${index + 1}: ${JSON.stringify(line)}`;
    if (line === '') return;
    const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (comment) {
      const [, kind, name, rest] = comment as unknown as [string, string, string, string];
      if (!new RegExp(`^${NAME}$`).test(name)) throw new Error(`bad metric name, ${where}`);
      const family = families.get(name) ?? { type: 'untyped', help: '', samples: [] };
      if (kind === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) throw new Error(`bad type, ${where}`);
        family.type = rest;
      } else family.help = rest;
      families.set(name, family);
      current = { name, family };
      return;
    }
    if (line.startsWith('#')) return;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample, ${where}`);
    const [, name, labelText, valueText] = match as unknown as [string, string, string | undefined, string];
    const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : Number(valueText);
    if (Number.isNaN(value) && valueText !== 'NaN') throw new Error(`bad value, ${where}`);
    const suffixes = current?.family.type === 'histogram' ? ['_bucket', '_sum', '_count'] : [''];
    if (!current || !suffixes.some((suffix) => name === current!.name + suffix)) throw new Error(`sample outside its family, ${where}`);
    const labels: Record<string, string> = {};
    for (const [, label, raw] of (labelText ?? '').matchAll(LABEL)) labels[label!] = raw!.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    current.family.samples.push({ name, labels, value });
  });
  return families;
}

/** The value of the one sample of `family` named `name` with these labels (a subset), or throws. */
export function sampleValue(families: Map<string, PromFamily>, family: string, labels: Record<string, string> = {}, name = family): number {
  const found =
    families.get(family)?.samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) ??
    [];
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]!.value;
}
