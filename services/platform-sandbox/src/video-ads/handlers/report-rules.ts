import { paramError, type ApiResult } from '../envelope';

/** Longest start..end range in days (both ends included) per time dimension; docs/providers.md. */
const MAX_SPAN_DAYS = { stat_time_day: 30, stat_time_hour: 1, none: 365 } as const;

/** Dimensions must be known for this report, unique, and use at most one time granularity. */
export function checkDimensions(
  dimensions: readonly string[],
  allowed: readonly string[],
  context: string,
): ApiResult | undefined {
  const duplicate = dimensions.find((dimension, index) => dimensions.indexOf(dimension) !== index);
  if (duplicate !== undefined) return paramError(`dimensions: Duplicate dimension: ${duplicate}.`);
  const invalid = dimensions.filter((dimension) => !allowed.includes(dimension));
  if (invalid.length > 0) {
    return paramError(
      `dimensions: Invalid dimension(s) for ${context}: ${invalid.join(', ')}. Allowed: ${allowed.join(', ')}.`,
    );
  }
  if (dimensions.includes('stat_time_day') && dimensions.includes('stat_time_hour')) {
    return paramError('dimensions: stat_time_day and stat_time_hour cannot be used together.');
  }
  return undefined;
}

/** end >= start, and the span limit of the time dimension in use (the platform's own wording). */
export function checkDateRange(startDay: number, endDay: number, dimensions: readonly string[]): ApiResult | undefined {
  if (endDay < startDay) return paramError('end_date: Must be later than or equal to start_date.');
  const days = endDay - startDay + 1;
  if (dimensions.includes('stat_time_hour')) {
    if (days > MAX_SPAN_DAYS.stat_time_hour) return paramError('max time span is 1 day when use stat_time_hour');
  } else if (dimensions.includes('stat_time_day')) {
    if (days > MAX_SPAN_DAYS.stat_time_day) return paramError('max time span is 30 days when use stat_time_day');
  } else if (days > MAX_SPAN_DAYS.none) {
    return paramError('max time span is 365 days');
  }
  return undefined;
}
