import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactUrls } from '../../src/util/redact-urls.js';
import { isSecretName } from '../../src/util/secret-name.js';

describe('credentials in URLs are masked wherever URLs are printed (redactUrls)', () => {
  it('masks the user and password of a URL, keeping where it points', () => {
    assert.equal(redactUrls('http://user:SECRET@127.0.0.1:8000/v1/models: HTTP 500'), 'http://***@127.0.0.1:8000/v1/models: HTTP 500');
    assert.equal(redactUrls('https://SECRET@host/v1'), 'https://***@host/v1', 'a token alone as the user');
    assert.equal(redactUrls('http://user:p@ss@host:1/x'), 'http://***@host:1/x', 'an @ in the password: the last one before the path ends it');
  });

  it('masks secret-looking query parameters, keeping the others', () => {
    assert.equal(redactUrls('http://h/v1/models?api_key=SECRET&api-version=2024'), 'http://h/v1/models?api_key=***&api-version=2024');
    for (const name of ['key', 'token', 'access_token', 'sig', 'X-Amz-Signature', 'X-Amz-Security-Token', 'apiKey', 'client_secret', 'password']) {
      assert.equal(redactUrls(`http://h/x?a=1&${name}=SECRET`), `http://h/x?a=1&${name}=***`, name);
    }
    assert.equal(redactUrls('http://h/x?max_tokens=5&model=m'), 'http://h/x?max_tokens=5&model=m');
    assert.equal(
      redactUrls('http://h/models?key=SECRET: connect ECONNREFUSED'),
      'http://h/models?key=***: connect ECONNREFUSED',
      'the message after the URL is kept',
    );
    assert.equal(redactUrls('http://h/x?sig=a:b,c'), 'http://h/x?sig=***', 'a : or , inside the value is part of it');
  });

  it('finds every URL in free text, whatever surrounds it', () => {
    const text = `http://a:SECRET@h1:1/run, http://h2:2?token=SECRET and {"url":"http://u:SECRET@h3"} mail me@example.com`;
    const redacted = redactUrls(text);
    assert.doesNotMatch(redacted, /SECRET/);
    assert.match(redacted, /me@example\.com/, 'an address outside a URL is left alone');
    assert.equal(redactUrls(redacted), redacted, 'idempotent');
  });
});

describe('which names hold a credential (isSecretName)', () => {
  it('matches keys and tokens in any spelling, not tokenizer settings', () => {
    for (const name of [
      'api_key',
      'OPENAI_API_KEY',
      'apiKey',
      'policy_api_key',
      'hf_token',
      'token',
      'accessToken',
      'password',
      'db_password',
      'secret',
      'client_secret',
      'credentials',
      'Authorization',
      'aws_secret_access_key',
    ]) {
      assert.ok(isSecretName(name), name);
    }
    for (const name of ['max_tokens', 'max_output_tokens', 'eos_token', 'pad_token', 'tokenizer', 'base_url', 'model', 'keys', 'monkey_count']) {
      assert.ok(!isSecretName(name), name);
    }
  });
});
