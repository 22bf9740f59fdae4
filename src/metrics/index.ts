export { AggregateAccumulator, type AggregateOptions, type AgentAggregate, type AgentSummary, type AnswerKey } from './aggregate-accumulator.js';
export { GroupLevelMetricsList, type GroupLevelMetrics, type RolloutInfo } from './group-level-metrics.js';
export { MetricColumns, USAGE_FIELDS } from './metric-columns.js';
export {
  PassAtKAccumulator,
  passMajorityMetrics,
  unbiasedPassAtK,
  NO_ANSWER,
  type AgentMetrics,
  type PerSampleAggregate,
  type ScoredRollout,
} from './pass-at-k.js';
export { RolloutKeyList } from './rollout-key-list.js';
export { rolloutMetrics, rolloutFacts, rolloutFactsFromRow, RolloutMetricsAccumulator, type RolloutFacts } from './rollout-metrics.js';
export { percentile } from './percentile.js';
