/**
 * Reports the Discord gateway to operations: the surface is ready when every shard this process
 * runs is ready (a shard that is down leaves its guilds deaf), and each shard reconnect is counted.
 * discord.js reconnects shards on its own; this only watches.
 */
import { type Client, Events } from 'discord.js';
import type { SurfaceConnection } from '../../src/ops/surface-connection.js';

export function watchGateway(client: Client, connection: SurfaceConnection): void {
  const ready = new Set<number>();
  const publish = (detail: string) => {
    // Before login the shard count is unknown: one is the least that must come up.
    const needed = Math.max(1, client.ws.shards.size);
    connection.update({ ready: ready.size, needed, detail });
  };
  const up = (shardId: number) => {
    ready.add(shardId);
    publish(ready.size >= Math.max(1, client.ws.shards.size) ? 'gateway connected' : 'some shards not ready');
  };
  const down = (shardId: number, why: string) => {
    ready.delete(shardId);
    publish(`gateway shard ${shardId} not ready (${why})`);
  };
  client.on(Events.ShardReady, (shardId) => up(shardId));
  client.on(Events.ShardResume, (shardId) => up(shardId));
  client.on(Events.ShardReconnecting, (shardId) => {
    connection.reconnecting();
    down(shardId, 'reconnecting');
  });
  client.on(Events.ShardDisconnect, (event, shardId) => down(shardId, `closed with code ${event.code}`));
  publish('connecting to the gateway');
}
