import { describe, expect, it } from 'vitest';
import { escapeHtml, escapeXml } from './markup.js';

describe('text put into markup', () => {
  it('cannot end an element or an attribute in HTML', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('cannot end an element or an attribute in XML', () => {
    expect(escapeXml(`<Say a="1" b='2'>&</Say>`)).toBe('&#60;Say a=&#34;1&#34; b=&#39;2&#39;&#62;&#38;&#60;/Say&#62;');
  });
});
