import { describe, expect, it } from 'vitest';
import { html, raw } from './html.js';

describe('the html tag', () => {
  it('escapes every interpolated text, so user content cannot become markup', () => {
    const name = `<script>alert("x")</script>&'`;
    expect(html`<p title="${name}">${name}</p>`.text).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>',
    );
  });

  it('keeps nested fragments and raw markup as they are, and drops null, undefined and false', () => {
    const items = ['a<b', 'c'].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}${null}${undefined}${false}${raw('<hr>')}</ul>`.text).toBe('<ul><li>a&lt;b</li><li>c</li><hr></ul>');
  });
});
