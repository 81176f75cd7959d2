// The "report" event subject: who may hear about a report, and the bridge from the package's
// own run events to platform events.

export const subject = "report";

interface ReportEvent {
  subjectId: string;
  projectId: string;
}

interface Session {
  userId: string;
  projectIds: string[];
}

interface State {
  owners: Record<string, string>; // reportId -> userId
  onRunFailed(listener: (run: { reportId: string; projectId: string }) => void): () => void;
}

/** Deny-by-default: only people in the report's project who own the report see its events. */
export function visible(event: ReportEvent, session: Session, state: State): boolean {
  return session.projectIds.includes(event.projectId) && state.owners[event.subjectId] === session.userId;
}

type Publish = (e: { event: string; subjectId: string; projectId: string; data: Record<string, unknown>; audience?: string[] }) => void;

export function bridge(publish: Publish, state: State): () => void {
  return state.onRunFailed((run) =>
    publish({ event: "report.failed", subjectId: run.reportId, projectId: run.projectId, data: { reportId: run.reportId } }),
  );
}
