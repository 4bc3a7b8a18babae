import { describe, expect, it } from 'vitest';
import { pathFilter } from './path-filter.js';

const site = 'https://example.com';

describe('include and exclude path prefixes', () => {
  it('takes every page when neither is given', () => {
    expect(pathFilter([], []).allows(`${site}/anything?at=all`)).toBe(true);
  });

  it('takes only pages under an include prefix', () => {
    const filter = pathFilter(['/help/', 'docs'], []);
    expect(filter.allows(`${site}/help/returns`)).toBe(true);
    expect(filter.allows(`${site}/docs/v2/intro`)).toBe(true);
    expect(filter.allows(`${site}/helpdesk`)).toBe(false);
    expect(filter.allows(`${site}/blog/post`)).toBe(false);
  });

  it('never takes a page under an exclude prefix, even one that is included', () => {
    const filter = pathFilter(['/help/'], ['/help/internal', '/search?']);
    expect(filter.allows(`${site}/help/returns`)).toBe(true);
    expect(filter.allows(`${site}/help/internal/notes`)).toBe(false);
    expect(pathFilter([], ['/search?']).allows(`${site}/search?q=refund`)).toBe(false);
    expect(pathFilter([], ['/search?']).allows(`${site}/search`)).toBe(true);
  });

  it('reads * as any run of characters, and regular expression characters as themselves', () => {
    const filter = pathFilter(['/docs/*/faq'], ['/docs/(old)']);
    expect(filter.allows(`${site}/docs/v2/faq`)).toBe(true);
    expect(filter.allows(`${site}/docs/v2/faq/billing`)).toBe(true);
    expect(filter.allows(`${site}/docs/v2/guide`)).toBe(false);
    expect(pathFilter([], ['/docs/(old)']).allows(`${site}/docs/(old)/faq`)).toBe(false);
    expect(pathFilter(['/a.b'], []).allows(`${site}/axb`)).toBe(false);
  });

  it('matches a path written with its characters or percent-encoded alike', () => {
    expect(pathFilter(['/café/'], []).allows(`${site}/caf%C3%A9/menu`)).toBe(true);
  });
});
