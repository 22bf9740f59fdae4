export { rolloutMetrics, rolloutMetricsFromFacts, rolloutFacts, type RolloutFacts } from './rollout-metrics.js';
export { percentile, mean, sum, max, min, rate } from './summarize.js';
export { columnStatistics, median, sampleStd, STATISTICS } from './column-statistics.js';
export { passMajorityMetrics, unbiasedPassAtK, type ScoredRollout } from './pass-at-k.js';
export { aggregateMetrics, numericFields, type AggregateMetrics, type AggregateOptions, type GroupLevelMetrics, type ResultRow } from './aggregate-metrics.js';
