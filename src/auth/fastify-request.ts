// Every request carries the user it was authenticated as (set by the first onRequest hook).
import type { UserInfo } from './types.js';

declare module 'fastify' {
  interface FastifyRequest {
    user: UserInfo;
  }
}
