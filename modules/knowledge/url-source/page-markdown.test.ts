import { describe, expect, it } from 'vitest';
import { UrlSourceError } from './errors.js';
import { demoteHeadings, joinPages, pageMediaType, pageSection, refuseUnreadableType, shapePage } from './page-markdown.js';

describe('a page under a heading of its own', () => {
  it('takes the heading the page began with as its title, and moves its other headings one level down', () => {
    const page = shapePage('# Returns\n\nIntro.\n\n## Refunds\n\nText.\n', 'https://example.com/returns', 'Returns | Shop');
    expect(page).toEqual({ title: 'Returns', markdown: 'Intro.\n\n### Refunds\n\nText.' });
    expect(pageSection({ ...page, url: 'https://example.com/returns' })).toBe('# Returns (https://example.com/returns)\n\nIntro.\n\n### Refunds\n\nText.\n');
  });

  it('falls back on the <title>, then the file name, then the URL', () => {
    expect(shapePage('Text.', 'https://example.com/a', 'Shop  FAQ').title).toBe('Shop FAQ');
    expect(shapePage('Text.', 'https://example.com/files/user%20guide.pdf', null).title).toBe('user guide.pdf');
    expect(shapePage('Text.', 'https://example.com/', null).title).toBe('https://example.com/');
    expect(pageSection({ title: 'https://example.com/', url: 'https://example.com/', markdown: 'Text.' })).toBe('# https://example.com/\n\nText.\n');
  });

  it('leaves code fences alone and keeps level-6 headings at 6', () => {
    const markdown = '# A\n\n```sh\n# a comment\n```\n\n~~~\n## not a heading\n~~~\n\n###### Deep\n\n#hashtag';
    expect(demoteHeadings(markdown)).toBe('## A\n\n```sh\n# a comment\n```\n\n~~~\n## not a heading\n~~~\n\n###### Deep\n\n#hashtag');
  });

  it('joins pages in order and hashes the joined text, so the same text always has the same hash', () => {
    const one = joinPages(['# A (u)\n\nx\n', '# B (v)\n\ny\n']);
    expect(one.markdown).toBe('# A (u)\n\nx\n\n# B (v)\n\ny\n');
    expect(one.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(joinPages(['# A (u)\n\nx\n', '# B (v)\n\ny\n']).sha256).toBe(one.sha256);
    expect(joinPages(['# A (u)\n\nx\n']).sha256).not.toBe(one.sha256);
  });
});

describe('what a fetched resource is read as', () => {
  it('reads the Content-Type, and the extension when the type says only text or bytes', () => {
    expect(pageMediaType('https://e.com/', 'text/html; charset=utf-8', Buffer.alloc(0))).toBe('text/html');
    expect(pageMediaType('https://e.com/prices.csv', 'text/plain', Buffer.alloc(0))).toBe('text/csv');
    expect(pageMediaType('https://e.com/notes.md', 'application/octet-stream', Buffer.alloc(0))).toBe('text/markdown');
    expect(pageMediaType('https://e.com/download', 'application/octet-stream', Buffer.from('%PDF-1.4'))).toBe('application/pdf');
  });

  it('refuses a type that is not a document as unsupported_type, before its body is read', () => {
    expect(() => refuseUnreadableType('https://e.com/clip', 'video/mp4')).toThrow(UrlSourceError);
    expect(() => refuseUnreadableType('https://e.com/clip', 'video/mp4')).toThrow(/video\/mp4/);
    expect(() => refuseUnreadableType('https://e.com/file', 'application/octet-stream')).not.toThrow();
    expect(() => refuseUnreadableType('https://e.com/file', null)).not.toThrow();
  });
});
