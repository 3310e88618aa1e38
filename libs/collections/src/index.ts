export { IdTable } from './id-table';
export { IndexIds, LARGEST_INDEX_ID } from './index-ids';
export { EarliestDeadline, expireDueIn } from './earliest-deadline';
