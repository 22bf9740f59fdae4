/** The dataset splits of a NeMo Gym config (`datasets[].type`), which `collect --split` names. */
export const DATASET_TYPES = ['train', 'validation', 'example', 'benchmark'] as const;
export type DatasetSplit = (typeof DATASET_TYPES)[number];
