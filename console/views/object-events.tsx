/** The Events section of an object's page (`GET /api/v2/<collection>/{id}/events`). */
import { useEffect, useState } from 'preact/hooks';
import type { EventRead } from '../../src/region/http/schemas/event.ts';
import { Badge, Empty, ProblemNote, Section } from '../components.tsx';
import { useScope } from '../context.ts';

/** The collections whose objects have Events. */
export type EventsCollection = 'networks' | 'securitygroups' | 'servers' | 'loadbalancers' | 'volumes';

/** An object's Events, oldest first: its conditions over time. Read again whenever the stream brings a change. */
export function ObjectEvents({ path, changes }: { path: `/api/v2/${EventsCollection}/${string}`; changes: number }) {
  const { api } = useScope();
  const [events, setEvents] = useState<readonly EventRead[] | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(undefined);
  useEffect(() => {
    api('GET', `${path}/events`).then(setEvents, setProblem);
  }, [api, path, changes]);
  return (
    <Section title="Events">
      <ProblemNote problem={problem} />
      {events?.length === 0 ? <Empty what="events" /> : null}
      <table class="events">
        <thead>
          <tr>
            <th scope="col">Last seen</th>
            <th scope="col">Type</th>
            <th scope="col">Reason</th>
            <th scope="col">Message</th>
            <th scope="col">Count</th>
          </tr>
        </thead>
        <tbody>
          {(events ?? []).map((e) => (
            <tr key={`${e.firstTimestamp}-${e.reason}-${e.message}`} data-reason={e.reason}>
              <td>
                <time dateTime={e.lastTimestamp}>{e.lastTimestamp.replace('T', ' ').replace('Z', ' UTC')}</time>
              </td>
              <td>
                <Badge value={e.type} />
              </td>
              <td>{e.reason}</td>
              <td>{e.message}</td>
              <td>{e.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
