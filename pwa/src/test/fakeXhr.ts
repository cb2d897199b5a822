// For the tests of uploads (the client's upload helper uses XMLHttpRequest, which jsdom cannot send).

/** An XMLHttpRequest that reports the progress the test tells it to, then answers. */
export class FakeXhr {
  static last: FakeXhr | undefined;
  upload: { onprogress: ((e: { loaded: number; total: number; lengthComputable: boolean }) => void) | null } =
    {
      onprogress: null,
    };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  status = 0;
  responseText = "";
  withCredentials = false;
  url = "";
  body: FormData | undefined;
  open(_method: string, url: string) {
    this.url = url;
  }
  setRequestHeader() {}
  // The panel's own answers carry no proxy marker to look for.
  getResponseHeader(): string | null {
    return null;
  }
  send(body: FormData) {
    this.body = body;
    FakeXhr.last = this;
  }
  abort() {
    this.onabort?.();
  }
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ loaded, total, lengthComputable: true });
  }
  answer(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
}
