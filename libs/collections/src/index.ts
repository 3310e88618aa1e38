export { IdTable } from './id-table';
