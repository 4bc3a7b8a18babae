import { describe, expect, it } from 'vitest';
import { mayBeDocument, normalisePageUrl, readHtmlPage, sameOrigin } from './links.js';

describe('page URLs as the crawl compares them', () => {
  it('drops the fragment and keeps the query', () => {
    expect(normalisePageUrl('https://example.com/help?topic=returns#refunds')).toBe('https://example.com/help?topic=returns');
  });

  it('lower-cases scheme and host, drops a default port and gives an empty path its slash', () => {
    expect(normalisePageUrl('HTTPS://Example.COM:443')).toBe('https://example.com/');
    expect(normalisePageUrl('http://example.com:80/a')).toBe('http://example.com/a');
  });

  it('resolves relative links against the page, dot segments included', () => {
    expect(normalisePageUrl('../faq#top', 'https://example.com/help/returns/policy')).toBe('https://example.com/help/faq');
  });

  it('refuses what is not http(s), and links carrying credentials', () => {
    for (const href of ['mailto:help@example.com', 'javascript:void(0)', 'tel:+15555550100', 'ftp://example.com/a']) {
      expect(normalisePageUrl(href, 'https://example.com/'), href).toBeNull();
    }
    expect(normalisePageUrl('https://user:secret@example.com/')).toBeNull();
    expect(normalisePageUrl('not a url')).toBeNull();
  });
});

describe('the one site a crawl stays on', () => {
  it('is the same scheme, host and port', () => {
    expect(sameOrigin('https://example.com/a', 'https://example.com:443/b?c')).toBe(true);
    expect(sameOrigin('https://example.com/a', 'http://example.com/a')).toBe(false);
    expect(sameOrigin('http://127.0.0.1:8080/', 'http://127.0.0.1:8081/')).toBe(false);
    expect(sameOrigin('https://example.com/', 'https://www.example.com/')).toBe(false);
  });
});

describe('links that may lead to a document', () => {
  it('skips images, media, archives and office formats other than .docx, and keeps the rest', () => {
    for (const url of ['https://e.com/logo.PNG', 'https://e.com/a.mp4', 'https://e.com/x.zip', 'https://e.com/s.xlsx']) {
      expect(mayBeDocument(url), url).toBe(false);
    }
    for (const url of [
      'https://e.com/',
      'https://e.com/help',
      'https://e.com/guide.pdf',
      'https://e.com/a.docx',
      'https://e.com/v1.2',
      'https://e.com/page.php?x=a.png',
    ]) {
      expect(mayBeDocument(url), url).toBe(true);
    }
  });
});

describe('reading an HTML page for its title and links', () => {
  it('takes every http(s) link once, in document order, fragments dropped, nofollow left out', () => {
    const html = `<html><head><title>  Help
      centre </title></head><body>
      <nav><a href="/a">A</a> <a href="b?x=1#part">B</a></nav>
      <a href="/a#again">A again</a> <a href="mailto:x@example.com">mail</a> <a href="">empty</a>
      <a href="/private" rel="NoFollow external">hidden</a> <map><area href="/c"></map>
      <a href="https://other.example/d">elsewhere</a></body></html>`;
    expect(readHtmlPage(html, 'https://example.com/help/')).toEqual({
      title: 'Help centre',
      links: ['https://example.com/a', 'https://example.com/help/b?x=1', 'https://example.com/c', 'https://other.example/d'],
    });
  });

  it('resolves links against <base href>', () => {
    const html = '<html><head><base href="https://example.com/docs/"></head><body><a href="intro">x</a></body></html>';
    expect(readHtmlPage(html, 'https://example.com/start').links).toEqual(['https://example.com/docs/intro']);
  });

  it('reads a fragment without <html> or <body>, and has no title then', () => {
    expect(readHtmlPage('<p>See <a href="/faq">the FAQ</a></p>', 'https://example.com/')).toEqual({
      title: null,
      links: ['https://example.com/faq'],
    });
  });
});
