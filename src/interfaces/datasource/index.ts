import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';

/** The datasource interface (spec part datasource). */
export async function datasourceInterface(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
