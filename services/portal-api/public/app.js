// The key portal's web app: one script, no build step. Every page talks to the JSON API under /api
// (see /api/openapi.json). Text from the API is always inserted as text nodes, never as HTML.
'use strict';

const PUBLIC_PAGES = ['/sign-in', '/sign-up'];
/**
 * The gateway's providers as the portal serves them (GET /api/providers, the catalogue's one list): `{id, label,
 * connect}`, where connect is authorization_page, key_pair or null (not offered here). Loaded once, in main().
 */
let providers = [];
const SVG_NS = 'http://www.w3.org/2000/svg';

function providerOf(id) {
  return providers.find((provider) => provider.id === id);
}

function labelOf(id) {
  const provider = providerOf(id);
  return provider ? provider.label : id;
}

/** The connect page of a provider without an authorization page (CONNECT_PAGES by its `connect`), or undefined. */
function connectPageOf(id) {
  const provider = providerOf(id);
  return provider && CONNECT_PAGES[provider.connect] ? `/connections/${provider.id}` : undefined;
}

// ---- DOM and API helpers ---------------------------------------------------------------------------------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (name === 'text') el.textContent = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs || {})) el.setAttribute(name, String(value));
  for (const child of children.flat()) if (child) el.append(child);
  return el;
}

class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.code = problem && problem.code;
    this.problem = problem || {};
  }
}

let csrfToken;
async function csrf() {
  if (!csrfToken) csrfToken = (await (await fetch('/api/csrf', { credentials: 'same-origin' })).json()).csrf_token;
  return csrfToken;
}

async function api(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (method !== 'GET') headers['X-CSRF-Token'] = await csrf();
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) {
    if (response.status === 401 && !PUBLIC_PAGES.includes(location.pathname) && data && data.code === 'not_signed_in') {
      location.assign(`/sign-in?next=${encodeURIComponent(location.pathname)}`);
    }
    throw new ApiError(response.status, data);
  }
  return data;
}

function formatDate(iso) {
  return iso ? new Date(iso).toLocaleString() : '—';
}

function app() {
  return document.getElementById('app');
}

function render(...children) {
  app().replaceChildren(...children);
}

function flash(kind, message) {
  return h('div', { class: `flash ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, message);
}

/** Shows the API's per-field messages next to the fields (name="<path>"), and a general message on top. */
function showErrors(form, error) {
  form.querySelectorAll('.field-error').forEach((el) => el.remove());
  form.querySelectorAll('[aria-invalid]').forEach((el) => el.removeAttribute('aria-invalid'));
  const top = form.querySelector('.form-error');
  const fieldErrors = (error.problem && error.problem.errors) || [];
  let placed = 0;
  for (const { path, message } of fieldErrors) {
    const field = form.querySelector(`[data-field="${path.split('.')[0]}"]`);
    if (!field) continue;
    placed += 1;
    const input = field.querySelector('input, textarea');
    if (input) input.setAttribute('aria-invalid', 'true');
    field.append(h('div', { class: 'field-error' }, message));
  }
  top.replaceChildren();
  if (placed === 0 || fieldErrors.length === 0) top.append(flash('error', error.message));
}

function field(name, label, input, hint) {
  return h(
    'div',
    { 'data-field': name },
    h('label', { for: input.id || undefined }, label),
    input,
    hint ? h('div', { class: 'muted' }, hint) : null,
  );
}

async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Clipboard API refused (non-secure context): select the text so the person can copy it.
    const range = document.createRange();
    range.selectNodeContents(button.previousSibling);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    document.execCommand('copy');
  }
  button.textContent = 'Copied';
  setTimeout(() => (button.textContent = 'Copy'), 2000);
}

function copyable(text, testId) {
  const code = h('code', { 'data-testid': testId }, text);
  const button = h('button', { type: 'button', class: 'secondary', onclick: () => copyText(text, button) }, 'Copy');
  return h('div', { class: 'secret' }, code, button);
}

// ---- Pages ---------------------------------------------------------------------------------------------

function authPage(kind) {
  const signUp = kind === 'sign-up';
  const form = h(
    'form',
    { class: 'card narrow', novalidate: true },
    h('h1', {}, signUp ? 'Create your account' : 'Sign in'),
    h('div', { class: 'form-error' }),
    signUp
      ? field(
          'name',
          'Name',
          h('input', { id: 'name', name: 'name', type: 'text', autocomplete: 'name', required: true }),
        )
      : null,
    field(
      'email',
      'Email',
      h('input', { id: 'email', name: 'email', type: 'email', autocomplete: 'email', required: true }),
    ),
    field(
      'password',
      'Password',
      h('input', {
        id: 'password',
        name: 'password',
        type: 'password',
        autocomplete: signUp ? 'new-password' : 'current-password',
        required: true,
      }),
      signUp ? 'At least 12 characters.' : null,
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, signUp ? 'Create account' : 'Sign in')),
    h(
      'p',
      { class: 'muted' },
      signUp ? 'Already have an account? ' : 'New here? ',
      h('a', { href: signUp ? '/sign-in' : '/sign-up' }, signUp ? 'Sign in' : 'Create an account'),
    ),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(form));
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      await api('POST', signUp ? '/api/auth/sign-up' : '/api/auth/sign-in', data);
      const next = new URLSearchParams(location.search).get('next');
      location.assign(
        next && next.startsWith('/') && !next.startsWith('//') ? next : signUp ? '/connections' : '/keys',
      );
    } catch (error) {
      if (error.code === 'too_many_attempts')
        error.message = 'Too many failed attempts. Wait a few minutes and try again.';
      showErrors(form, error);
      button.disabled = false;
    }
  });
  render(form);
}

async function keysPage() {
  const [{ keys }, { plan }, { connections }] = await Promise.all([
    api('GET', '/api/keys'),
    api('GET', '/api/plan'),
    api('GET', '/api/connections'),
  ]);
  const secretBox = h('div', { id: 'one-time-key' });

  const showSecret = (title, secret) => {
    secretBox.replaceChildren(
      h(
        'div',
        { class: 'card', role: 'status' },
        h('h2', {}, title),
        h('p', {}, 'Copy this key now. It is shown only this once and cannot be viewed again.'),
        copyable(secret, 'secret'),
        h(
          'div',
          { class: 'actions' },
          // Only hides the secret: the list is already fresh, and reloading the page here would race a click on
          // the list and could paint a key the user just revoked as active again.
          h('button', { type: 'button', class: 'secondary', onclick: () => secretBox.replaceChildren() }, 'Done'),
        ),
      ),
    );
    secretBox.scrollIntoView({ block: 'nearest' });
  };

  const active = connections.filter((c) => c.status !== 'revoked');
  const form = h(
    'form',
    { class: 'card', novalidate: true },
    h('h2', {}, 'Create a key'),
    h('div', { class: 'form-error' }),
    field(
      'name',
      'Name',
      h('input', { id: 'key-name', name: 'name', type: 'text', placeholder: 'e.g. reporting server' }),
    ),
    h(
      'div',
      { 'data-field': 'providers' },
      h('label', {}, 'Providers'),
      h(
        'div',
        { class: 'checks' },
        plan.providers.map((p) =>
          h(
            'label',
            {},
            // The first provider of the list is checked to start with.
            h('input', { type: 'checkbox', name: 'providers', value: p, checked: p === providers[0]?.id }),
            labelOf(p),
          ),
        ),
      ),
    ),
    h(
      'div',
      { 'data-field': 'account_ids' },
      h('label', {}, 'Connections'),
      active.length === 0
        ? h(
            'p',
            { class: 'muted' },
            'No connections yet. ',
            h('a', { href: '/connections' }, 'Connect an account'),
            ' first.',
          )
        : h(
            'div',
            { class: 'checks' },
            active.map((c) =>
              h(
                'label',
                {},
                h('input', { type: 'checkbox', name: 'account_ids', value: c.account_id, checked: true }),
                `${c.account_id} (${c.provider})`,
              ),
            ),
          ),
    ),
    field(
      'ip_allowlist',
      'IP allowlist (optional)',
      h('textarea', {
        id: 'key-ips',
        name: 'ip_allowlist',
        rows: 2,
        placeholder: 'One address or CIDR per line; empty allows any address',
      }),
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create key')),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    try {
      const created = await api('POST', '/api/keys', {
        name: String(data.get('name') || ''),
        providers: data.getAll('providers'),
        account_ids: data.getAll('account_ids'),
        ip_allowlist: lines(data.get('ip_allowlist')),
      });
      form.reset();
      await refreshList();
      showSecret(`Key “${created.key.name}” created`, created.secret);
    } catch (error) {
      showErrors(form, error);
    }
  });

  const list = h('div', { class: 'card' });
  const refreshList = async () => {
    const fresh = (await api('GET', '/api/keys')).keys;
    list.replaceChildren(keyTable(fresh));
  };

  const keyTable = (rows) => {
    if (rows.length === 0) {
      return h(
        'div',
        { class: 'empty' },
        h('p', {}, 'You have no keys yet.'),
        h('p', {}, 'Create one above to call the REST gateway or the MCP endpoint.'),
      );
    }
    return h(
      'table',
      { 'data-testid': 'keys' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Key id', 'Name', 'Source', 'Created', 'Last used', 'Status', ''].map((t) => h('th', {}, t)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((key) =>
          h(
            'tr',
            { 'data-key-id': key.key_id },
            h('td', { class: 'mono' }, key.key_id),
            h(
              'td',
              {},
              key.name,
              key.status === 'active' && key.follows_connections
                ? h('div', { class: 'muted', 'data-testid': 'follows' }, 'Follows all connections')
                : null,
            ),
            h('td', {}, key.source === 'oauth' ? 'Assistant sign-in' : 'Portal'),
            h('td', {}, formatDate(key.created_at)),
            h('td', {}, key.last_used_at ? formatDate(key.last_used_at) : 'Never'),
            h('td', {}, h('span', { class: `badge ${key.status}` }, key.status)),
            h('td', {}, key.status === 'active' ? keyActions(key) : null),
          ),
        ),
      ),
    );
  };

  // The edit form of one key: built when opened, so closed forms add no second "Name" field to the page.
  const editForm = (key) => {
    const followable = key.follows_connections || key.source === 'oauth';
    const follow = h('input', {
      type: 'checkbox',
      name: 'follows_connections',
      checked: key.follows_connections,
      onchange: () => syncFollow(),
    });
    const connectionChecks = active.map((c) =>
      h(
        'label',
        {},
        h('input', {
          type: 'checkbox',
          name: 'account_ids',
          value: c.account_id,
          checked: key.account_ids.includes(c.account_id),
        }),
        `${c.account_id} (${c.provider})`,
      ),
    );
    const syncFollow = () => {
      for (const label of connectionChecks) label.querySelector('input').disabled = follow.checked;
    };
    const form = h(
      'form',
      { class: 'edit-key', novalidate: true, 'data-testid': `edit-${key.key_id}` },
      h('div', { class: 'form-error' }),
      field(
        'name',
        'Key name',
        h('input', { id: `edit-name-${key.key_id}`, name: 'name', type: 'text', value: key.name }),
      ),
      h(
        'div',
        { 'data-field': 'providers' },
        h('label', {}, 'Providers'),
        h(
          'div',
          { class: 'checks' },
          plan.providers.map((p) =>
            h(
              'label',
              {},
              h('input', { type: 'checkbox', name: 'providers', value: p, checked: key.providers.includes(p) }),
              labelOf(p),
            ),
          ),
        ),
      ),
      h(
        'div',
        { 'data-field': 'account_ids' },
        h('label', {}, 'Connections'),
        followable
          ? h('label', {}, follow, 'Follows all connections (new ones included); uncheck to choose connections')
          : null,
        active.length === 0
          ? h('p', { class: 'muted' }, 'No connections yet.')
          : h('div', { class: 'checks' }, connectionChecks),
      ),
      field(
        'ip_allowlist',
        'IP allowlist',
        h('textarea', { name: 'ip_allowlist', rows: 2 }, key.ip_allowlist.join('\n')),
      ),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit' }, 'Save changes'),
        h('button', { type: 'button', class: 'secondary', onclick: () => form.remove() }, 'Cancel'),
      ),
    );
    syncFollow();
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const changes = {
        name: String(data.get('name') || ''),
        providers: data.getAll('providers'),
        ip_allowlist: lines(data.get('ip_allowlist')),
      };
      // Choosing connections narrows a following key; following again needs no list.
      if (followable && follow.checked) changes.follows_connections = true;
      else changes.account_ids = data.getAll('account_ids');
      try {
        await api('PATCH', `/api/keys/${key.key_id}`, changes);
        await refreshList();
      } catch (error) {
        showErrors(form, error);
      }
    });
    return form;
  };

  const keyActions = (key) => {
    const editSlot = h('div', {});
    const ipForm = h(
      'form',
      { hidden: true, novalidate: true },
      h('div', { class: 'form-error' }),
      field(
        'ip_allowlist',
        'IP allowlist',
        h('textarea', { name: 'ip_allowlist', rows: 3 }, key.ip_allowlist.join('\n')),
      ),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save')),
    );
    ipForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      try {
        await api('PUT', `/api/keys/${key.key_id}/ip-allowlist`, {
          ip_allowlist: lines(new FormData(ipForm).get('ip_allowlist')),
        });
        await refreshList();
      } catch (error) {
        showErrors(ipForm, error);
      }
    });
    return h(
      'div',
      {},
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: async () => {
              if (!confirm(`Rotate “${key.name}”? The current key stops working immediately.`)) return;
              const rotated = await api('POST', `/api/keys/${key.key_id}/rotate`);
              await refreshList();
              showSecret(`Key “${rotated.key.name}” rotated`, rotated.secret);
            },
          },
          'Rotate',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            onclick: async () => {
              if (!confirm(`Revoke “${key.name}”? It stops working immediately.`)) return;
              await api('POST', `/api/keys/${key.key_id}/revoke`);
              await refreshList();
            },
          },
          'Revoke',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: () => {
              if (editSlot.firstChild) editSlot.replaceChildren();
              else editSlot.replaceChildren(editForm(key));
            },
          },
          'Edit',
        ),
        h(
          'button',
          { type: 'button', class: 'secondary', onclick: () => (ipForm.hidden = !ipForm.hidden) },
          'IP allowlist',
        ),
      ),
      ipForm,
      editSlot,
    );
  };

  list.append(keyTable(keys));
  render(h('h1', {}, 'API keys'), secretBox, form, list);
}

function lines(value) {
  return String(value || '')
    .split(/[\s,]+/)
    .map((line) => line.trim())
    .filter(Boolean);
}

const GRANT_ERRORS = {
  invalid_state: 'The authorization could not be matched to this session. Start again.',
  signed_out: 'Your session ended during the authorization. Sign in and start again.',
  denied: 'The platform did not grant access.',
  grant_failed: 'The platform refused the authorization. Try again.',
  connection_limit_reached: 'Your plan allows no more connections.',
  no_accounts: 'The grant covers no account or shop.',
  other_account: "The grant does not cover this connection's account; choose the same account on the platform.",
};

const STATUS_LABELS = { active: 'Active', revoked: 'Revoked', needs_regrant: 'Needs re-grant' };
const NEEDS_REGRANT_HELP = 'The platform no longer accepts this grant; re-grant it, the account id stays the same.';

async function connectionsPage() {
  const data = await api('GET', '/api/connections');
  const params = new URLSearchParams(location.search);
  const notices = [];
  if (params.get('connected')) {
    const ids = params.get('connected').split(',').join(', ');
    notices.push(flash('ok', `${params.get('regranted') ? 'Re-granted' : 'Connected'}: ${ids}`));
  }
  const waiting = data.connections.filter((c) => c.status === 'needs_regrant');
  if (waiting.length > 0) {
    notices.push(
      flash(
        'error',
        `${waiting.length === 1 ? 'A connection needs' : `${waiting.length} connections need`} a re-grant. ${NEEDS_REGRANT_HELP}`,
      ),
    );
  }
  if (params.get('error'))
    notices.push(flash('error', GRANT_ERRORS[params.get('error')] || 'The authorization failed.'));
  const errorBox = h('div', {});

  const go = async (path, body) => {
    try {
      const { authorization_url } = await api('POST', path, body);
      location.assign(authorization_url);
    } catch (error) {
      errorBox.replaceChildren(flash('error', error.message));
    }
  };

  const full = data.used >= data.allowance;
  const connect = h(
    'div',
    { class: 'card' },
    h('p', {}, `${data.used} of ${data.allowance} connections used on your plan.`),
    h(
      'div',
      { class: 'actions' },
      data.grantable_providers.map((p) =>
        h(
          'button',
          {
            type: 'button',
            disabled: full,
            // A provider without an authorization page (connect: key_pair) has its own connect page.
            onclick: () =>
              connectPageOf(p) ? location.assign(connectPageOf(p)) : go('/api/connections/grants', { provider: p }),
          },
          `Connect ${labelOf(p)}`,
        ),
      ),
    ),
    full ? h('p', { class: 'muted' }, 'Upgrade your plan to add more connections.') : null,
  );

  const table =
    data.connections.length === 0
      ? h(
          'div',
          { class: 'card empty' },
          h('p', {}, 'No connections yet.'),
          h('p', {}, 'Connect an advertising account or a shop to use it with your keys.'),
        )
      : h(
          'div',
          { class: 'card' },
          h(
            'table',
            { 'data-testid': 'connections' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Account id (X-Account-Id)', 'Provider', 'Platform accounts', 'Granted', 'Status', ''].map((t) =>
                  h('th', {}, t),
                ),
              ),
            ),
            h(
              'tbody',
              {},
              data.connections.map((c) =>
                h(
                  'tr',
                  { 'data-account-id': c.account_id, 'data-status': c.status },
                  h('td', { class: 'mono' }, c.account_id),
                  h('td', {}, labelOf(c.provider)),
                  h('td', { class: 'mono' }, c.external_account_ids.join(', ')),
                  h('td', {}, formatDate(c.granted_at)),
                  h(
                    'td',
                    {},
                    h(
                      'span',
                      { class: `badge ${c.status}`, 'data-testid': 'connection-status' },
                      STATUS_LABELS[c.status] || c.status,
                    ),
                    c.status === 'needs_regrant'
                      ? h('p', { class: 'status-help', 'data-testid': 'needs-regrant-help' }, NEEDS_REGRANT_HELP)
                      : null,
                  ),
                  h(
                    'td',
                    {},
                    data.grantable_providers.includes(c.provider)
                      ? h(
                          'button',
                          {
                            type: 'button',
                            // A connection the platform stopped accepting gets the prominent button.
                            class: c.status === 'needs_regrant' ? 'regrant' : 'secondary',
                            onclick: () =>
                              connectPageOf(c.provider)
                                ? location.assign(
                                    `${connectPageOf(c.provider)}?account_id=${encodeURIComponent(c.account_id)}`,
                                  )
                                : go(`/api/connections/${c.account_id}/regrant`),
                          },
                          'Re-grant',
                        )
                      : c.status === 'needs_regrant'
                        ? h('span', { class: 'muted' }, 'Re-grant is not available for this provider here yet.')
                        : null,
                  ),
                ),
              ),
            ),
          ),
        );
  render(h('h1', {}, 'Connections'), ...notices, errorBox, connect, table);
}

/**
 * search-ads' grant UI, the connect page of a `key_pair` provider (no authorization page; the only such provider so
 * far, so the texts are its platform's): 1. the portal makes a key pair and shows the public key, which the customer
 * registers as an API user on the platform; 2. the customer enters the client id, team id and key id the platform
 * shows; 3. picks one organization of the API user. The private key never reaches the browser. `provider`: the
 * served `{id, label}`; its operations are under /api/connections/<id>.
 */
async function searchAdsConnectPage(provider) {
  const base = `/api/connections/${provider.id}`;
  const accountId = new URLSearchParams(location.search).get('account_id');
  const regrant = Boolean(accountId);
  let pendingId = null;

  const keyStep = h('div', { class: 'card', 'data-testid': 'step-key' });
  const idsStep = h('div', { class: 'card', 'data-testid': 'step-ids', hidden: true });
  const orgStep = h('div', { class: 'card', 'data-testid': 'step-org', hidden: true });
  const doneBox = h('div', {});
  const keyError = h('div', { class: 'form-error' });

  const generate = h('button', { type: 'button' }, 'Generate key');
  keyStep.append(
    h('h2', {}, '1. Generate a key'),
    h(
      'p',
      {},
      'The portal makes a key pair for this connection. You register its public key as an API user on the platform; ',
      'the private key stays in the portal, encrypted, and is never shown.',
    ),
    keyError,
    h('div', { class: 'actions' }, generate),
  );
  generate.addEventListener('click', async () => {
    generate.disabled = true;
    try {
      const key = await api('POST', `${base}/keys`, regrant ? { account_id: accountId } : {});
      pendingId = key.pending_id;
      const pem = h('pre', { class: 'public-key', 'data-testid': 'public-key' }, key.public_key_pem);
      const copy = h(
        'button',
        { type: 'button', class: 'secondary', onclick: () => copyText(key.public_key_pem, copy) },
        'Copy',
      );
      keyStep.replaceChildren(
        h('h2', {}, '1. Register the public key on the platform'),
        h('div', { class: 'secret' }, pem, copy),
        h(
          'ol',
          {},
          h(
            'li',
            {},
            'Open ',
            h(
              'a',
              {
                href: key.api_users_url,
                target: '_blank',
                rel: 'noopener noreferrer',
                'data-testid': 'api-users-link',
              },
              'the API page of your Apple Ads account settings',
            ),
            ' and create an API user (role: API Account Read Only is enough).',
          ),
          h('li', {}, 'Paste the public key above, choose the organizations, and save.'),
          h('li', {}, 'The platform shows a client ID, a team ID and a key ID: enter them below.'),
        ),
        h('p', { class: 'muted' }, `This key waits for its API user until ${formatDate(key.expires_at)}.`),
      );
      idsStep.hidden = false;
      idsForm.querySelector('input').focus();
    } catch (error) {
      keyError.replaceChildren(flash('error', error.message));
      generate.disabled = false;
    }
  });

  const idsForm = h(
    'form',
    { novalidate: true },
    h('div', { class: 'form-error' }),
    field(
      'client_id',
      'Client ID',
      h('input', { id: 'sa-client-id', name: 'client_id', type: 'text', autocomplete: 'off' }),
    ),
    field('team_id', 'Team ID', h('input', { id: 'sa-team-id', name: 'team_id', type: 'text', autocomplete: 'off' })),
    field('key_id', 'Key ID', h('input', { id: 'sa-key-id', name: 'key_id', type: 'text', autocomplete: 'off' })),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Check API user')),
  );
  idsStep.append(h('h2', {}, '2. Enter the API user'), idsForm);
  idsForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(idsForm);
    const button = idsForm.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      const { orgs } = await api('POST', `${base}/verify`, {
        pending_id: pendingId,
        client_id: String(data.get('client_id') || ''),
        team_id: String(data.get('team_id') || ''),
        key_id: String(data.get('key_id') || ''),
      });
      idsForm.querySelector('.form-error').replaceChildren(flash('ok', 'The platform accepts this API user.'));
      showOrgs(orgs);
    } catch (error) {
      showErrors(idsForm, error);
    } finally {
      button.disabled = false;
    }
  });

  const showOrgs = (orgs) => {
    const orgForm = h(
      'form',
      { novalidate: true },
      h('div', { class: 'form-error' }),
      orgs.length === 0
        ? h('p', { class: 'muted' }, 'This API user has no organization. Give it access to one on the platform.')
        : h(
            'div',
            { class: 'orgs', 'data-field': 'org_id' },
            orgs.map((org, i) =>
              h(
                'label',
                { class: 'org' },
                h('input', { type: 'radio', name: 'org_id', value: org.org_id, checked: i === 0 }),
                ` ${org.org_name} `,
                h('span', { class: 'muted' }, `(orgId ${org.org_id}, ${org.currency}, ${org.time_zone})`),
              ),
            ),
          ),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', disabled: orgs.length === 0 }, regrant ? 'Re-grant' : 'Connect organization'),
      ),
    );
    orgForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      const button = orgForm.querySelector('button[type="submit"]');
      button.disabled = true;
      try {
        const done = await api('POST', base, {
          pending_id: pendingId,
          org_id: Number(new FormData(orgForm).get('org_id')),
        });
        keyStep.hidden = true;
        idsStep.hidden = true;
        orgStep.hidden = true;
        doneBox.replaceChildren(
          h(
            'div',
            { class: 'card', role: 'status' },
            h('h2', {}, done.regranted ? 'Re-granted' : 'Connected'),
            h('p', {}, `Send this account id as X-Account-Id with a key that holds ${provider.label}:`),
            copyable(done.account_id, 'connected-account-id'),
            h('div', { class: 'actions' }, h('a', { href: '/connections' }, 'Back to connections')),
          ),
        );
      } catch (error) {
        showErrors(orgForm, error);
        button.disabled = false;
      }
    });
    orgStep.replaceChildren(h('h2', {}, '3. Choose the organization'), orgForm);
    orgStep.hidden = false;
  };

  render(
    h('h1', {}, regrant ? `Re-grant ${accountId} (${provider.label})` : `Connect ${provider.label}`),
    h(
      'p',
      { class: 'muted' },
      regrant
        ? 'A new key pair replaces the old one; the account id stays the same.'
        : 'One connection is one organization of your Apple Ads account.',
    ),
    doneBox,
    keyStep,
    idsStep,
    orgStep,
  );
}

/**
 * Requests per day (bars) and their running total (line) against the quota all the customer's keys share (dashed).
 * `series`: `{ label, testId, used, days }`, the customer's month or one key's share of it.
 */
function usageChart(usage, series) {
  const width = 640;
  const height = 220;
  const pad = { left: 48, right: 12, top: 12, bottom: 28 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const counts = new Map(series.days.map((d) => [d.day, d.count]));
  const days = Array.from({ length: usage.days_in_month }, (_, i) => String(i + 1).padStart(2, '0'));
  let running = series.used - series.days.reduce((sum, d) => sum + d.count, 0);
  const cumulative = days.map((day) => (running += counts.get(day) || 0));
  // The y scale covers the quota, or the usage when it went beyond (metered plans).
  const top = Math.max(usage.monthly_quota, series.used, 1);
  const y = (value) => pad.top + plotH - (value / top) * plotH;
  const slot = plotW / days.length;
  const maxDaily = Math.max(1, ...counts.values());
  const today = new Date().toISOString().slice(0, 7) === usage.month ? new Date().getUTCDate() : days.length;

  const bars = days.map((day, i) => {
    const count = counts.get(day) || 0;
    // Daily bars use the lower third of the plot on their own scale, so a day is visible even far below the quota.
    const barH = count === 0 ? 0 : Math.max(2, (count / maxDaily) * (plotH / 3));
    return s(
      'rect',
      {
        class: 'bar',
        x: pad.left + i * slot + 1,
        y: pad.top + plotH - barH,
        width: Math.max(1, slot - 2),
        height: barH,
        'data-day': day,
        'data-count': count,
      },
      s('title', {}, document.createTextNode(`${usage.month}-${day}: ${count} requests`)),
    );
  });
  const points = cumulative
    .slice(0, today)
    .map((value, i) => `${pad.left + i * slot + slot / 2},${y(value)}`)
    .join(' ');
  return s(
    'svg',
    {
      class: 'chart',
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': `Usage of ${series.label} in ${usage.month}`,
      'data-testid': series.testId,
      'data-used': series.used,
    },
    s('line', { class: 'axis', x1: pad.left, y1: pad.top + plotH, x2: width - pad.right, y2: pad.top + plotH }),
    s('line', { class: 'axis', x1: pad.left, y1: pad.top, x2: pad.left, y2: pad.top + plotH }),
    s('line', {
      class: 'quota',
      x1: pad.left,
      y1: y(usage.monthly_quota),
      x2: width - pad.right,
      y2: y(usage.monthly_quota),
    }),
    s(
      'text',
      { x: pad.left - 4, y: y(usage.monthly_quota) + 3, 'text-anchor': 'end' },
      document.createTextNode(usage.monthly_quota.toLocaleString()),
    ),
    s('text', { x: pad.left - 4, y: pad.top + plotH + 3, 'text-anchor': 'end' }, document.createTextNode('0')),
    ...bars,
    s('polyline', { class: 'cumulative', points }),
    ...[1, 8, 15, 22, days.length].map((d) =>
      s(
        'text',
        { x: pad.left + (d - 1) * slot + slot / 2, y: height - 8, 'text-anchor': 'middle' },
        document.createTextNode(String(d)),
      ),
    ),
  );
}

/** Set through the CSSOM: the CSP allows no inline style attributes. */
function meter(percent) {
  const fill = h('span', {});
  fill.style.width = `${percent}%`;
  return h(
    'div',
    {
      class: 'meter',
      role: 'progressbar',
      'aria-valuenow': Math.round(percent),
      'aria-valuemin': 0,
      'aria-valuemax': 100,
    },
    fill,
  );
}

const percent = (value) => `${value.toLocaleString(undefined, { maximumFractionDigits: 1 })}%`;

async function usagePage() {
  const [{ plan, connections_used }, usage] = await Promise.all([api('GET', '/api/plan'), api('GET', '/api/usage')]);
  const { total } = usage;
  const planCard = h(
    'div',
    { class: 'card' },
    h('h2', {}, `Plan: ${plan.name}`),
    h(
      'table',
      {},
      h(
        'tbody',
        {},
        [
          ['Providers', plan.providers.map(labelOf).join(', ')],
          ['Rate', `${plan.rate_limit_rps} requests/second per key (burst ${plan.rate_burst})`],
          [
            'Monthly quota',
            `${plan.monthly_quota.toLocaleString()} requests a month, shared by all your keys (${plan.overage_mode} beyond)`,
          ],
          ['AI suggestions', `${total.suggestion_allowance.toLocaleString()} a month, shared by all your keys`],
          ['Connections', `${connections_used} of ${plan.connection_allowance}`],
          ['MCP tier', plan.mcp_tier.replace('_', ' ')],
        ].map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, v))),
      ),
    ),
  );
  // The customer's days: the sum of its keys' days (each key lists only its own).
  const totalDays = new Map();
  for (const key of usage.keys) for (const d of key.days) totalDays.set(d.day, (totalDays.get(d.day) || 0) + d.count);
  const totalCard = h(
    'div',
    { class: 'card', 'data-testid': 'usage-total' },
    h('h2', {}, 'All your keys'),
    h(
      'p',
      { 'data-testid': 'total-line' },
      h('strong', { 'data-testid': 'total-used' }, total.used.toLocaleString()),
      ` of ${total.monthly_quota.toLocaleString()} requests this month, shared by all your keys`,
    ),
    meter(Math.min(100, (total.used / Math.max(1, total.monthly_quota)) * 100)),
    h(
      'p',
      { class: 'muted' },
      `${total.remaining.toLocaleString()} left in ${usage.month} (UTC); ` +
        `${total.suggestions_used.toLocaleString()} of ${total.suggestion_allowance.toLocaleString()} AI suggestions used.`,
    ),
    usageChart(usage, {
      label: 'all your keys',
      testId: 'chart-total',
      used: total.used,
      days: [...totalDays].sort(([a], [b]) => a.localeCompare(b)).map(([day, count]) => ({ day, count })),
    }),
    h('p', { class: 'muted' }, 'Bars: requests per day. Line: running total against the quota (dashed).'),
  );
  const shares =
    usage.keys.length === 0
      ? h(
          'div',
          { class: 'card empty' },
          h('p', {}, 'No active keys, so no usage yet.'),
          h('a', { href: '/keys' }, 'Create a key'),
        )
      : usage.keys.map((key) =>
          h(
            'div',
            { class: 'card', 'data-key-id': key.key_id, 'data-status': key.status },
            h(
              'h2',
              {},
              key.name,
              ' ',
              h('span', { class: 'muted mono' }, key.key_id),
              key.status === 'active' ? null : [' ', h('span', { class: `badge ${key.status}` }, key.status)],
            ),
            h(
              'p',
              { 'data-testid': 'key-share' },
              h('strong', { 'data-testid': 'quota-used' }, key.share.used.toLocaleString()),
              ' requests, ',
              h('strong', { 'data-testid': 'share-percent' }, percent(key.share.share_percent)),
              ' of the total',
            ),
            meter(key.share.share_percent),
            usageChart(usage, {
              label: key.name,
              testId: `chart-${key.key_id}`,
              used: key.share.used,
              days: key.days,
            }),
          ),
        );
  render(
    h('h1', {}, 'Plan & usage'),
    planCard,
    h('h2', {}, 'Usage this month'),
    totalCard,
    h('h2', {}, "Each key's share"),
    ...[shares].flat(),
  );
}

async function mcpPage() {
  const { mcp_url, rest_base_url } = await api('GET', '/api/mcp');
  render(
    h('h1', {}, 'Connect an assistant (MCP)'),
    h('div', { class: 'card' }, h('h2', {}, 'MCP address'), copyable(mcp_url, 'mcp-url')),
    h(
      'div',
      { class: 'card' },
      h('h2', {}, 'Sign in with OAuth (recommended)'),
      h(
        'ol',
        {},
        h('li', {}, 'In your assistant, add a custom connector with the MCP address above.'),
        h('li', {}, 'The assistant sends you here: sign in with your portal account and consent once.'),
        h(
          'li',
          {},
          'A key named after the assistant with “(OAuth)” appears on the Keys page. Revoking it ends the assistant’s access.',
        ),
      ),
      h('p', { class: 'muted' }, 'No secret to paste: the permission is bound to your assistant account.'),
    ),
    h(
      'div',
      { class: 'card' },
      h('h2', {}, 'Use an API key'),
      h('p', {}, 'For other MCP clients, agents and scripts: send your key as a bearer token to the MCP address.'),
      h('pre', {}, `Authorization: Bearer <API_KEY>`),
      h(
        'pre',
        {},
        JSON.stringify(
          { mcpServers: { 'data-gateway': { url: mcp_url, headers: { Authorization: 'Bearer <API_KEY>' } } } },
          null,
          2,
        ),
      ),
      h(
        'p',
        {},
        'The REST gateway is at ',
        h('code', {}, rest_base_url),
        ' with the X-API-Key header. Keep keys server-side.',
      ),
    ),
  );
}

// ---- Router --------------------------------------------------------------------------------------------

const PAGES = {
  '/keys': keysPage,
  '/connections': connectionsPage,
  '/usage': usagePage,
  '/mcp': mcpPage,
};

/** The connect page of each way to connect without an authorization page, at /connections/<provider id>. */
const CONNECT_PAGES = { key_pair: searchAdsConnectPage };

async function main() {
  const path = location.pathname;
  document.getElementById('sign-out').addEventListener('click', async () => {
    await api('POST', '/api/auth/sign-out').catch(() => undefined);
    location.assign('/sign-in');
  });
  // Not secret and needed by every signed-in page: fetched beside the session check.
  const served = api('GET', '/api/providers');
  served.catch(() => undefined);
  let signedIn = false;
  try {
    await api('GET', '/api/me');
    signedIn = true;
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) throw error;
  }
  if (PUBLIC_PAGES.includes(path)) {
    if (signedIn) return location.assign('/keys');
    return authPage(path.slice(1));
  }
  if (!signedIn) return location.assign(path === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(path)}`);
  document.getElementById('nav').hidden = false;
  providers = (await served).providers;
  const page = PAGES[path];
  if (page) return page();
  const provider = providers.find((candidate) => path === `/connections/${candidate.id}`);
  const connectPage = provider && CONNECT_PAGES[provider.connect];
  if (!connectPage) return location.assign('/keys');
  await connectPage(provider);
}

main().catch((error) => render(flash('error', `Something went wrong: ${error.message}`)));
