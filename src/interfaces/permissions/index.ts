import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';

/** The permissions interface (spec part permissions). */
export async function permissionsInterface(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
