/**
 * What one turn used, call by call: the turn's model clients and tool registry are wrapped, so every
 * model call (chat, tools, planner, answer) and every tool call is counted without the modes knowing.
 * Usage is what the provider reported (cached and reasoning tokens included, priced as billed by
 * `estimateCost`); a call that ended without any usage report is counted from the request's and the
 * reply's estimated tokens (src/llm/tokens.ts), so a provider that reports nothing is not free.
 *
 * Being where each of the turn's model and tool calls passes, the meter also tells the turn's scope
 * (traces; `TurnScope`, src/core/scout-deps.ts) of them: the scope's watcher joins the meter's on the same
 * stream, so hearing a call adds no wrapper of its own.
 */
import { LlmError } from '../errors.js';
import { estimateCost, type PriceTable } from '../llm/pricing.js';
import { countMessageTokens, countTokens } from '../llm/tokens.js';
import type { LlmClient, LlmRequest, StreamPart, Usage } from '../llm/types.js';
import { watchedStream } from '../llm/watched-stream.js';
import type { ToolRegistry } from '../tools/types.js';
import type { TurnScope } from '../core/scout-deps.js';

interface CallRecord {
  label: string;
  usage: Usage | undefined;
  request: LlmRequest;
  /** What the model sent back, for the estimate when no usage came. */
  output: string;
  /** The call produced something or finished: worth an estimate when the provider said nothing. */
  answered: boolean;
}

export interface ModelTotals {
  usd: number;
  tokens: number;
  calls: number;
  /** True when the model has no price: its tokens count, its USD is 0. */
  unpriced: boolean;
  /** True when at least one call had no usage report and was estimated. */
  estimated: boolean;
}

export interface TurnTotals {
  usd: number;
  tokens: number;
  models: Map<string, ModelTotals>;
  tools: Map<string, number>;
}

const hasUsage = (usage: Usage | undefined): usage is Usage =>
  usage !== undefined && usage.inputTokens + usage.outputTokens > 0;

export class TurnMeter {
  private readonly calls: CallRecord[] = [];
  private readonly tools = new Map<string, number>();
  private scope: TurnScope | undefined;

  /** The turn's scope, told of every model and tool call from now on. */
  tellScope(scope: TurnScope): void {
    this.scope = scope;
  }

  /** The client, counted: a plain iterator over the client's stream (as src/ops/instrument-llm.ts). */
  wrapLlm(client: LlmClient): LlmClient {
    const record = (request: LlmRequest): CallRecord => {
      const call: CallRecord = {
        label: client.label,
        usage: undefined,
        request,
        output: '',
        answered: false,
      };
      this.calls.push(call);
      return call;
    };
    const fold = (call: CallRecord, part: StreamPart) => {
      if (part.type === 'usage') call.usage = part.usage;
      else if (part.type === 'text' || part.type === 'reasoning') {
        call.output += part.text;
        call.answered = true;
      } else if (part.type === 'tool-call') {
        call.output += part.toolCall.name + part.toolCall.arguments;
        call.answered = true;
      } else if (part.type === 'finish') call.answered = true;
    };
    const failed = (call: CallRecord, err: unknown) => {
      if (!hasUsage(call.usage) && err instanceof LlmError && err.details.usage)
        call.usage = err.details.usage;
    };
    const meter = this;
    return {
      config: client.config,
      label: client.label,
      stream(request) {
        const counted = watchedStream(
          () => client.stream(request),
          () => {
            const call = record(request);
            return { part: (part) => fold(call, part), error: (err: unknown) => failed(call, err) };
          },
        );
        const hear = meter.scope?.modelCall;
        // A second watcher on a watched stream joins the first: no layer of its own.
        return hear
          ? watchedStream(
              () => counted,
              () => hear(client, request),
            )
          : counted;
      },
      async complete(request) {
        const call = record(request);
        const heard = meter.scope?.modelCall?.(client, request);
        try {
          const response = await client.complete(request);
          call.usage = response.usage;
          call.output = response.text + response.reasoning;
          call.answered = true;
          heard?.response?.(response);
          return response;
        } catch (err) {
          failed(call, err);
          heard?.error?.(err);
          throw err;
        } finally {
          heard?.end?.();
        }
      },
    };
  }

  /** The registry, with each executed tool counted by name (and told to the scope). */
  wrapTools(registry: ToolRegistry): ToolRegistry {
    return {
      ...registry,
      execute: (name, rawArguments, context) => {
        this.tools.set(name, (this.tools.get(name) ?? 0) + 1);
        const heard = this.scope?.toolCall?.(name, rawArguments, registry);
        if (!heard) return registry.execute(name, rawArguments, context);
        const { logFields, hearStep } = heard;
        return registry
          .execute(name, rawArguments, {
            ...context,
            ...(logFields ? { logFields } : {}),
            ...(hearStep ? { hearStep } : {}),
          })
          .then(
            (output) => {
              heard.end(output);
              return output;
            },
            (err: unknown) => {
              heard.end(undefined, err);
              throw err;
            },
          );
      },
    };
  }

  /** Sums the turn up, estimating calls that reported no usage. */
  async totals(prices: PriceTable): Promise<TurnTotals> {
    const models = new Map<string, ModelTotals>();
    let usd = 0;
    let tokens = 0;
    for (const call of this.calls) {
      let usage = call.usage;
      let estimated = false;
      if (!hasUsage(usage)) {
        if (!call.answered) continue;
        usage = {
          inputTokens: await countMessageTokens(call.request.messages),
          outputTokens: await countTokens(call.output),
          reasoningTokens: 0,
        };
        estimated = true;
      }
      const cost = estimateCost(call.label, usage, prices);
      const callTokens = usage.inputTokens + usage.outputTokens;
      const entry = models.get(call.label) ?? {
        usd: 0,
        tokens: 0,
        calls: 0,
        unpriced: false,
        estimated: false,
      };
      entry.usd += cost ?? 0;
      entry.tokens += callTokens;
      entry.calls += 1;
      entry.unpriced ||= cost === undefined;
      entry.estimated ||= estimated;
      models.set(call.label, entry);
      usd += cost ?? 0;
      tokens += callTokens;
    }
    return { usd, tokens, models, tools: new Map(this.tools) };
  }
}
