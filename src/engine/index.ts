export { runEpisode, type EpisodeControl } from './run-episode.js';
export { runGroups, defaultSchedule, type EpisodeGroup, type RunGroupsOptions, type Schedule } from './run-groups.js';
export type { EpisodeOptions, MaxTokensPolicy } from './episode-options.js';
export type { EngineEvent, EngineObserver, EpisodeKey } from './engine-events.js';
