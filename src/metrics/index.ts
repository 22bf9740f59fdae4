export { rolloutMetrics } from './rollout-metrics.js';
export { percentile, mean, sum, max, min, rate } from './summarize.js';
