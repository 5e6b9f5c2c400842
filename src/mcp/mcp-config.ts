/**
 * MCP_CONFIG: the `mcp.json` file users already have from desktop MCP clients,
 * `{"mcpServers": {"name": {"command", "args", "env"} | {"url", "headers"}}}`, plus Scout's own
 * optional `trusted` (none of its tools asks for approval), `autoApprove` (these tools, by the
 * server's own name for them, do not ask) and `timeoutMs`. Only these operator settings skip
 * approval: a server's `readOnlyHint` is its own claim and never does. Problems name the server and
 * field, never a value: `env` and `headers` hold secrets.
 */
import { readFileSync } from 'node:fs';
import * as z from '../schema/zod.js';

/** A tool call waits this long by default; a slow server may set its own `timeoutMs`. */
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 30_000;
/** Server names become tool-name prefixes (`<server>__<tool>`), so they keep to the providers' alphabet. */
const SERVER_NAME = /^[a-zA-Z0-9_-]{1,32}$/;

const common = {
  trusted: z.optional(z.boolean()),
  /** Tool names as the server lists them (`create_issue`, not `github__create_issue`). */
  autoApprove: z.optional(z.array(z.string().check(z.minLength(1, 'must not be empty')))),
  timeoutMs: z.optional(z.number().check(z.int(), z.gte(1_000), z.lte(600_000))),
};
const StdioServer = z.strictObject({
  command: z.string().check(z.trim(), z.minLength(1, 'must not be empty')),
  args: z.optional(z.array(z.string())),
  env: z.optional(z.record(z.string(), z.string())),
  cwd: z.optional(z.string()),
  ...common,
});
const HttpServer = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  headers: z.optional(z.record(z.string(), z.string())),
  /** Desktop clients write `"type": "http"`, `"streamable-http"` or `"sse"`; all mean "try Streamable HTTP, fall back to SSE". */
  type: z.optional(z.enum(['http', 'streamable-http', 'streamableHttp', 'sse'])),
  ...common,
});
const McpFile = z.object({
  mcpServers: z.record(z.string(), z.unknown()),
});

export type McpServerConfig =
  | ({ name: string; transport: 'stdio' } & z.infer<typeof StdioServer>)
  | ({ name: string; transport: 'http' } & z.infer<typeof HttpServer>);

/**
 * Parses the text of an mcp.json. `${VAR}` in `env` and `headers` values is read from `environment`,
 * so secrets can stay out of the file. Returns the servers and one line per problem.
 */
export function parseMcpConfig(
  text: string,
  environment: Record<string, string | undefined> = process.env,
): { servers: McpServerConfig[]; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { servers: [], problems: ['MCP_CONFIG: the file is not valid JSON'] };
  }
  const file = McpFile.safeParse(json);
  if (!file.success) return { servers: [], problems: ['MCP_CONFIG: expected {"mcpServers": {…}}'] };
  const servers: McpServerConfig[] = [];
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(file.data.mcpServers)) {
    const where = `MCP_CONFIG: mcpServers.${name}`;
    if (!SERVER_NAME.test(name)) {
      problems.push(`${where}: a server name may use only letters, digits, _ and - (at most 32)`);
      continue;
    }
    const isHttp = typeof raw === 'object' && raw !== null && 'url' in raw;
    const parsed = (isHttp ? HttpServer : StdioServer).safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
        // zod's message for a wrong key names the key, never a value.
        problems.push(`${where}${field}: ${issue.message}`);
      }
      continue;
    }
    const missing: string[] = [];
    const expand = (values: Record<string, string> | undefined, field: string) =>
      values &&
      expandVariables(values, environment, (variable) =>
        missing.push(`${where}.${field}: \${${variable}} is not set`),
      );
    if (isHttp) {
      const server = parsed.data as z.infer<typeof HttpServer>;
      const headers = expand(server.headers, 'headers');
      servers.push({ ...server, ...(headers ? { headers } : {}), name, transport: 'http' });
    } else {
      const server = parsed.data as z.infer<typeof StdioServer>;
      const env = expand(server.env, 'env');
      servers.push({ ...server, ...(env ? { env } : {}), name, transport: 'stdio' });
    }
    problems.push(...missing);
  }
  return { servers, problems };
}

/** Reads and parses the file MCP_CONFIG names. */
export function loadMcpConfig(
  path: string,
  environment: Record<string, string | undefined> = process.env,
): { servers: McpServerConfig[]; problems: string[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    return { servers: [], problems: [`MCP_CONFIG: cannot read the file (${code})`] };
  }
  return parseMcpConfig(text, environment);
}

function expandVariables(
  values: Record<string, string>,
  environment: Record<string, string | undefined>,
  onMissing: (variable: string) => void,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    out[key] = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, variable: string) => {
      const found = environment[variable];
      if (found === undefined) onMissing(variable);
      return found ?? '';
    });
  }
  return out;
}

/** The values of `env` and `headers`: secrets the logger must scrub wherever they appear. */
export function mcpSecrets(servers: readonly McpServerConfig[]): string[] {
  const secrets: string[] = [];
  for (const server of servers) {
    const values = server.transport === 'stdio' ? server.env : server.headers;
    for (const value of Object.values(values ?? {})) {
      // Short values ("1", "true") are settings, not secrets; scrubbing them would garble logs.
      if (value.length >= 8) secrets.push(value);
      // "Bearer abc…": the token alone may also appear.
      const token = /^\S+\s+(\S{8,})$/.exec(value)?.[1];
      if (token) secrets.push(token);
    }
    if (server.transport === 'http') {
      try {
        const password = decodeURIComponent(new URL(server.url).password);
        if (password) secrets.push(password);
      } catch {
        // Validated as a URL already.
      }
    }
  }
  return secrets;
}
