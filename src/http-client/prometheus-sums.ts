/** Every sample of one metric taken together: their sum, and how many there were. */
export interface MetricSum {
  sum: number;
  samples: number;
}

/**
 * The samples of each metric in Prometheus text (exposition format 0.0.4) added up, by metric name: a
 * server with several engines (vLLM's data parallel: an `engine` label each) reads as one. Comment
 * lines and samples whose value is not a number are skipped; histogram series keep their own names
 * (`…_bucket`, `…_sum`, `…_count`).
 */
export function prometheusSums(text: string): Map<string, MetricSum> {
  const sums = new Map<string, MetricSum>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const nameEnd = line.search(/[{ ]/);
    if (nameEnd <= 0) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isNaN(value)) continue;
    const name = line.slice(0, nameEnd);
    const found = sums.get(name);
    if (found) {
      found.sum += value;
      found.samples += 1;
    } else sums.set(name, { sum: value, samples: 1 });
  }
  return sums;
}
