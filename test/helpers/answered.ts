import { AppError } from '../../src/domain/errors.js';
import { httpStatus } from '../../src/http/error-handler.js';

/**
 * Runs `fn`; an AppError it throws is thrown on as what a client is answered
 * (status, kind, message), so that a rule's test states the answer it leads to.
 */
export function answered<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof AppError) throw Object.assign(new Error(error.message), { status: httpStatus(error), kind: error.kind });
    throw error;
  }
}
