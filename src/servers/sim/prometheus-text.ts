import type { LatencyHistogram } from './latency-histogram.js';

/** Label names and values of one sample; written sorted by name, as Python's prometheus_client writes them. */
export type Labels = Readonly<Record<string, string>>;

/**
 * Writes metrics in the Prometheus text exposition format (version 0.0.4), the way Python's
 * prometheus_client (and so vLLM) writes them: a counter's family is named with `_total`, numbers as
 * Go floats (`1.0`, `+Inf`), labels sorted, `le` among them.
 */
export class PrometheusText {
  readonly #lines: string[] = [];

  gauge(name: string, help: string, labels: Labels, value: number): this {
    this.#family(name, help, 'gauge');
    this.#lines.push(sample(name, labels, value));
    return this;
  }

  /** One counter family with a sample per label set (`finished_reason`, …). */
  counter(name: string, help: string, samples: readonly { labels: Labels; value: number }[]): this {
    this.#family(`${name}_total`, help, 'counter');
    for (const { labels, value } of samples) this.#lines.push(sample(`${name}_total`, labels, value));
    return this;
  }

  histogram(name: string, help: string, labels: Labels, histogram: LatencyHistogram): this {
    this.#family(name, help, 'histogram');
    this.#lines.push(sample(`${name}_sum`, labels, histogram.sum));
    const cumulative = histogram.cumulative();
    histogram.buckets.forEach((bound, i) => this.#lines.push(sample(`${name}_bucket`, { ...labels, le: goFloat(bound) }, cumulative[i]!)));
    this.#lines.push(sample(`${name}_bucket`, { ...labels, le: '+Inf' }, histogram.count));
    this.#lines.push(sample(`${name}_count`, labels, histogram.count));
    return this;
  }

  toString(): string {
    return `${this.#lines.join('\n')}\n`;
  }

  #family(name: string, help: string, type: string): void {
    this.#lines.push(`# HELP ${name} ${help.replaceAll('\\', '\\\\').replaceAll('\n', '\\n')}`, `# TYPE ${name} ${type}`);
  }
}

function sample(name: string, labels: Labels, value: number): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((label) => `${label}="${escapeLabel(labels[label]!)}"`);
  return `${name}{${pairs.join(',')}} ${goFloat(value)}`;
}

const escapeLabel = (value: string) => value.replaceAll('\\', '\\\\').replaceAll('\n', '\\n').replaceAll('"', '\\"');

/** A number as Go and prometheus_client write it: `1.0`, `0.25`, `+Inf`, `NaN`. */
function goFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return Number.isInteger(value) && Math.abs(value) < 1e21 ? `${value}.0` : String(value);
}
