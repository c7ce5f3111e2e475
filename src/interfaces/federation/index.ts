import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';

/** The federation interface (spec part federation). */
export async function federationInterface(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
