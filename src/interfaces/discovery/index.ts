import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';

/** The discovery interface (spec part discovery). */
export async function discoveryInterface(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
