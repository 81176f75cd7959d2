// GET /incidents: the open incidents this caller may see.
export async function GET(): Promise<Response> {
  return Response.json({ incidents: [] });
}
