import type { FastifyRequest } from 'fastify';

/**
 * The absolute URL of this request, for list links. HANGAR_BASE_URL wins (behind a proxy the
 * Host header is not the public one); otherwise it comes from the request itself.
 */
export function absoluteUrl(request: FastifyRequest, baseUrl: string | null): URL {
  if (baseUrl) return new URL(baseUrl + request.url);
  return new URL(request.url, `${request.protocol}://${request.host}`);
}
