// How the Schedules page shows run times: the panel's time zone offset is in the string the server sends
// ("2026-06-02T04:00:00+02:00"); people read "2026-06-02 04:00".

export function formatRun(iso: string): string {
  return iso.slice(0, 16).replace("T", " ");
}
