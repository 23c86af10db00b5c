// One pagination helper for every paginated list: parsing, and the envelope every list answers
// with (absolute links whose brackets are percent-encoded, as TFE's are, and meta.pagination).
import { errors } from './errors.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface Page {
  number: number;
  size: number;
  offset: number;
}

type Query = Record<string, unknown>;

function parsePositiveInt(query: Query, key: string, fallback: number): number {
  const raw = query[key];
  if (raw === undefined) return fallback;
  const text = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (typeof text !== 'string' || !/^\d{1,9}$/.test(text) || Number(text) < 1) {
    throw errors.badRequest(`${key} must be a positive integer`, key);
  }
  return Number(text);
}

/** Reads page[number] / page[size]; a page size above the maximum is clamped, not refused. */
export function parsePage(query: Query): Page {
  const number = parsePositiveInt(query, 'page[number]', 1);
  const size = Math.min(parsePositiveInt(query, 'page[size]', DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE);
  return { number, size, offset: (number - 1) * size };
}

/** True when the client asked for a page; some TFE lists are unpaginated otherwise. */
export function wantsPage(query: Query): boolean {
  return query['page[number]'] !== undefined || query['page[size]'] !== undefined;
}

export interface PaginationMeta {
  'current-page': number;
  'page-size': number;
  'prev-page': number | null;
  'next-page': number | null;
  'total-pages': number;
  'total-count': number;
}

export interface ListEnvelope {
  links: { self: string; first: string; prev: string | null; next: string | null; last: string };
  meta: { pagination: PaginationMeta };
}

/**
 * `url` is the absolute URL of the request; its other query parameters (filters, sort) are kept
 * in every link so that following `next` gives the next page of the same list.
 */
export function envelope(url: URL, page: Page, totalCount: number): ListEnvelope {
  const totalPages = Math.max(1, Math.ceil(totalCount / page.size));
  const link = (n: number) => {
    const params = new URLSearchParams(url.search);
    params.set('page[number]', String(n));
    params.set('page[size]', String(page.size));
    // URLSearchParams percent-encodes the brackets, as TFE's links do.
    return `${url.origin}${url.pathname}?${params.toString()}`;
  };
  const prev = page.number > 1 ? Math.min(page.number - 1, totalPages) : null;
  const next = page.number < totalPages ? page.number + 1 : null;
  return {
    links: {
      self: link(page.number),
      first: link(1),
      prev: prev === null ? null : link(prev),
      next: next === null ? null : link(next),
      last: link(totalPages),
    },
    meta: {
      pagination: {
        'current-page': page.number,
        'page-size': page.size,
        'prev-page': prev,
        'next-page': next,
        'total-pages': totalPages,
        'total-count': totalCount,
      },
    },
  };
}
