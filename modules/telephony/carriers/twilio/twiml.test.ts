import { describe, expect, it } from 'vitest';
import { BUSY_TWIML, connectStreamTwiml, NOT_TAKEN_TWIML, REJECT_TWIML, UNAVAILABLE_TWIML } from './twiml.js';

describe('TwiML answers to the voice webhook', () => {
  it('connects the call to the stream URL and passes each parameter to its start message', () => {
    expect(connectStreamTwiml('wss://voice.example.com/telephony/media-stream', { token: 'CA1.1700000000.mac' })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="wss://voice.example.com/telephony/media-stream">' +
        '<Parameter name="token" value="CA1.1700000000.mac"/></Stream></Connect></Response>',
    );
  });

  it('escapes every character that could end an attribute or open an element', () => {
    expect(connectStreamTwiml('wss://h/x?a=1&b="2"', { token: `<'>` })).toContain(
      '<Stream url="wss://h/x?a=1&#38;b=&#34;2&#34;"><Parameter name="token" value="&#60;&#39;&#62;"/>',
    );
  });

  it('refuses with a spoken apology and a hang-up, or with a reject that answers nothing', () => {
    expect(NOT_TAKEN_TWIML).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Say>Sorry, this number cannot take your call.</Say><Hangup/></Response>');
    expect(BUSY_TWIML).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Reject reason="busy"/></Response>');
    expect(UNAVAILABLE_TWIML).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Say>Sorry, calls cannot be taken right now.</Say><Hangup/></Response>');
    expect(REJECT_TWIML).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Reject/></Response>');
  });
});
