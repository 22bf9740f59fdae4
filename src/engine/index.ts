export { runEpisode, type EpisodeControl } from './run-episode.js';
export { runGroups, type EpisodeGroup, type RunGroupsOptions } from './run-groups.js';
export { runJobs, Schedule, defaultSchedule, type JobControl, type SchedulerOptions } from './scheduler.js';
export { ConcurrencyLimit } from './concurrency-limit.js';
export type { EpisodeOptions, MaxTokensPolicy } from './episode-options.js';
export type { EngineEvent, EngineObserver, EpisodeKey } from './engine-events.js';
