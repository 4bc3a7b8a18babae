import { describe, expect, it } from 'vitest';
import { friendlyMessage } from './friendly-errors.js';

describe('a refusal as a form shows it', () => {
  it('puts the validators’ sentences in plain words, keeping their numbers', () => {
    expect(friendlyMessage({ type: 'string_too_short', msg: 'String should have at least 10 characters' })).toBe('Use at least 10 characters.');
    expect(friendlyMessage({ type: 'string_too_short', msg: 'String should have at least 1 character' })).toBe('Fill this in.');
    expect(friendlyMessage({ type: 'string_too_long', msg: 'String should have at most 200 characters' })).toBe('Use at most 200 characters.');
    expect(friendlyMessage({ type: 'less_than_equal', msg: 'Input should be less than or equal to 20' })).toBe('Use 20 or less.');
    expect(friendlyMessage({ type: 'greater_than_equal', msg: 'Input should be greater than or equal to 0.5' })).toBe('Use 0.5 or more.');
    expect(friendlyMessage({ type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' })).toBe('Use a whole number.');
    expect(friendlyMessage({ type: 'missing', msg: 'Field required' })).toBe('Fill this in.');
    expect(friendlyMessage({ type: 'url_parsing', msg: 'Input should be a valid URL' })).toBe('Use a full web address, starting with https://.');
    expect(friendlyMessage({ type: 'enum', msg: "Input should be 'mp3' or 'wav'" })).toBe('Pick one of the choices.');
    expect(friendlyMessage({ type: 'value_error', msg: 'value is not a valid email address' })).toBe('Use an email address, like name@example.com.');
  });

  it('shows a message the service wrote for people as it is', () => {
    const own = { type: 'value_error', msg: 'The stored key is not sent to another provider or base_url: send the key again' };
    expect(friendlyMessage(own)).toBe(own.msg);
    expect(friendlyMessage({ type: 'not_found', msg: 'No such assistant' })).toBe('No such assistant');
    // Its own words under a generic type: a schema's explanation is not replaced by the type's generic sentence.
    expect(friendlyMessage({ type: 'missing', msg: 'Give both dates, or neither' })).toBe('Give both dates, or neither');
    expect(friendlyMessage({ type: 'too_short', msg: 'A select property needs options' })).toBe('A select property needs options');
  });
});
