// Which pages of a site a crawl takes, by their path: `include` and `exclude` are path prefixes, as a site's sections
// are (`/help/`, `/blog/2019/`), with `*` for any run of characters (`/docs/*/faq`). The query is part of what is
// matched, so `/search?` excludes every search result page.

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A prefix pattern as a regular expression anchored at the start of the path. */
function prefixPattern(pattern: string): RegExp {
  const withSlash = pattern.startsWith('/') || pattern.startsWith('*') ? pattern : `/${pattern}`;
  return new RegExp(`^${withSlash.split('*').map(escapeRegExp).join('.*')}`);
}

export interface PathFilter {
  /** Whether the page at this URL is taken: under an `include` prefix (any, when there are none) and no `exclude` one. */
  allows(url: string): boolean;
}

export function pathFilter(include: readonly string[], exclude: readonly string[]): PathFilter {
  const included = include.filter((p) => p.trim()).map(prefixPattern);
  const excluded = exclude.filter((p) => p.trim()).map(prefixPattern);
  return {
    allows(url: string): boolean {
      const parsed = new URL(url);
      // Compared as the URL carries them (percent-encoded), and as written: `/caf%C3%A9/` and `/café/` are one path.
      const paths = [parsed.pathname + parsed.search];
      try {
        paths.push(decodeURIComponent(paths[0]!));
      } catch {
        // A malformed escape is compared as it is.
      }
      const matches = (patterns: RegExp[]) => patterns.some((p) => paths.some((path) => p.test(path)));
      if (matches(excluded)) return false;
      return included.length === 0 || matches(included);
    },
  };
}
