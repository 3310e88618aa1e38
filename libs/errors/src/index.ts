export { ERROR_CATALOGUE, errorStatus, isGatewayErrorCode } from './codes';
export type { GatewayErrorCode } from './codes';
export { problemDetails, PROBLEM_CONTENT_TYPE } from './problem';
export type { ProblemDetails } from './problem';
export { GatewayError } from './gateway-error';
export { sendProblem, sendProblemFields } from './problem-response';
export { requestIdOf } from './request-id';
export { wasNotForwarded, toGatewayCode } from './forward-failure';
export { escapeHtml } from './html-text';
