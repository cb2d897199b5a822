// Every user-facing text the product specification fixes, word for word. Both the backend (validation
// answers) and the PWA (form errors, flashes) use these, so the two can never drift apart.

import { ALERT_EVENTS, CHANNEL_TYPES } from "./alerts.ts";

export const MSG = {
  // Login
  usernameRequired: "Username is required",
  passwordRequired: "Password is required",
  loginFailed: "Login failed. Username or Password wrong.",

  // Users
  emailRequired: "Email is required",
  passwordConfirmationMismatch: "Password Confirmation is required and must match the Password",
  oldPasswordRequired: "Old Password is required",
  newPasswordRequired: "New Password is required",
  newPasswordConfirmationRequired: "New Password Confirmation is required",
  passwordChanged: "Password changed",

  // Errors (spec section 8)
  serviceNotAvailable: "Service not available",

  // Controls
  ipInvalid: "IP is required and must be valid.",
  portRequired: "Port is required",
  saveRequired: "Save is required",
  saveMustBeCreated: "Save must be created before starting server",

  // Saves
  savefileNameRequired: "Savefile Name is required",
  savefileRequired: "Savefile is required",
  createSaveWhileRunning: "Create a new Save is only possible if the Factorio server is not running.",

  // Mods
  modsDisabledWhileRunning: "Changing mods is disabled while the server is running!",
  portalLoginFailed: "Given username or email and password do not match any account.",
  modSearchRequired: "Mod search is required",
  modPackNameRequired: "Mod pack name is required",
  modsLoadedFromSave: (save: string) => `Mods are loaded from save file ${save}.`,
  loadModPackConfirm: (name: string) => `Loading the ModPack ${name} will remove all installed Mods.`,

  // Settings
  settingsSaved: "Settings saved.",

  // Console
  consoleUnavailable: "The console is not available, because Factorio is not running.",
} as const;

// Texts of our own (not fixed by the spec), kept here so tests and UI share them.
export const PANEL_MSG = {
  useWhitelistInvalid: "use_whitelist must be true or false.",
  exchangeStringMissing: "Paste a map exchange string (it starts with >>> and ends with <<<).",
  modsNotAllInstalled: (failed: { name: string; version: string; reason: string }[]) =>
    `Some mods could not be installed: ${
      failed.map((f) => `${f.name} ${f.version} (${f.reason})`).join("; ")
    }.`,
  notSignedIn: "You are not signed in.",
  crossSiteRefused: "Request refused: it came from another site.",
  serverNotStopped: "This is not possible while the Factorio server is running. Stop the server first.",
  jsonExpected: "The request body must be JSON (Content-Type: application/json).",
  jsonInvalid: "The request body is not valid JSON.",
  bodyTooLarge: (limit: string) => `The request body is too large (limit ${limit}).`,
  tooManyLogins: (seconds: number) =>
    `Too many failed sign-in attempts. Try again in ${formatWait(seconds)}.`,
  noSpace: (area: string) =>
    `No space left on the device: ${area} could not be written. Free some space and try again.`,
  unknownHost: (host: string, address: string) =>
    `This panel does not answer to the name ${host}. To use that name, add its address to --allowed-origins (for example http://${address}).`,
  signInBusy: "The panel is busy checking other sign-ins. Try again in a few seconds.",
  internalError: "Something went wrong in the panel. The panel log has the details.",

  // Users
  passwordRule: "At least 10 characters.",
  passwordTooShort: "Password must be at least 10 characters",
  cannotDeleteSelf:
    "You cannot delete your own account while signed in with it. Another admin can delete it.",
  modsWaitForStatus:
    "Checking whether the server is running: mods can be changed once it is known to be stopped.",
  deleteModConfirm: (name: string) =>
    `Delete the mod ${name}? Saves that use it will not load until it is installed again.`,
  replaceSaveConfirm: (name: string) =>
    `A save named ${name} already exists. Replace it with the uploaded file? The current ${name} is lost.`,
  restartConfirm:
    "Restart the server? It saves the map, stops, and starts again with the same save, address and port. Players are disconnected for a moment.",
  unsavedChanges: "You have unsaved changes. Leave this page and lose them?",
  generatedPassword:
    "You signed in with the password the panel generated at its first start. Choose your own now.",

  // Mods and the mod portal
  tokenRequired: "Token is required",
  modFileRequired: "Mod file is required",
  modFileNotZip: "A mod must be a .zip file.",
  portalTokenInvalid: "The token must be the text shown on factorio.com/profile (no spaces).",
  portalLoginRequired: "Log in to the mod portal first (Install Mod tab).",
  portalEmailCode:
    "This Factorio account asks for a code sent by e-mail, which the panel cannot pass on. Paste a token from factorio.com/profile instead.",
  authRateLimited:
    "The Factorio auth server refused: too many attempts. Wait a while, or paste a token instead.",
  portalRateLimited: (seconds: number) =>
    `The mod portal is limiting requests from this server. Try again in ${formatWait(seconds)}.`,
  portalTokenRefused: (status: number) =>
    `The mod portal refused the download (HTTP ${status}): the token is wrong or has expired. Log in to the mod portal again.`,
  downloadUrlRefused: "The download link must be a download path of the mod portal (/download/...).",
  checksumMismatch: (name: string, version: string) =>
    `The download of ${name} ${version} does not match the checksum the mod portal gave; nothing was installed.`,
  modInstalled: (name: string) => `${name} is installed.`,
  modInstalledWithDependencies: (name: string, added: string[]) =>
    `${name} is installed, with the mods it needs: ${added.join(", ")}.`,
  modUpdated: (name: string, version: string) => `${name} is updated to ${version}.`,
  modPackLoaded: (name: string) => `The mod pack ${name} is loaded.`,

  // Game server
  portRange: "Port must be a whole number from 1 to 65535.",
  serverAlreadyRunning: "Factorio server is already running",
  serverNotRunning: "Factorio server is not running",
  serverAlreadyStopping: "Factorio server is already stopping",
  serverStopped: "Factorio server stopped",
  serverKilled: "Factorio server killed",
  restartCancelled: "The automatic restart was cancelled.",
  killConfirm:
    "Kill the Factorio server now? It ends at once without saving: everything since the last save is lost. Use Save & Stop Server to keep the map.",
  serverStarted: (save: string, port: number) =>
    `Factorio server with save: ${save} started on port: ${port}`,

  // Settings and players
  settingsApplyAtNextStart: "The server is running: changes to these settings apply at its next start.",
  playersBusy: "The server is starting or stopping. Change the player lists once it is running or stopped.",
  playersNotRunning: "The server is not running, so no player is online.",
  playersLive: "The server is running: changes here reach the game at once.",
  playersStopped:
    "The server is stopped: changes are saved to the game's list files and apply at its next start.",
  playerAdded: (name: string, list: string) => `${name} added to the ${list}.`,
  playerRemoved: (name: string, list: string) => `${name} removed from the ${list}.`,
  playerKicked: (name: string) => `${name} was kicked.`,
  whitelistUse: (on: boolean) =>
    on
      ? "The whitelist will be used from the next start."
      : "The whitelist will not be used from the next start.",

  // Saves
  saveFormatNotAllowed: (ext: string) => `Fileformat .${ext} is not allowed: a Factorio save is a .zip file`,
  saveUploaded: (name: string) => `Uploaded ${name}.`,
  saveDeleteConfirm: (name: string) => `Delete the save ${name}? This cannot be undone.`,
  saveCreating: "Creating the map. The game needs a while for this.",
} as const;

export function formatWait(seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 60) return `${s} second${s === 1 ? "" : "s"}`;
  const m = Math.ceil(s / 60);
  return `${m} minute${m === 1 ? "" : "s"}`;
}

// Texts of push notifications, the Notifications page and the offline shell.
export const PUSH_MSG = {
  endpointInvalid: "The subscription's endpoint must be the https:// address of a push service.",
  endpointPrivate:
    "The subscription's endpoint is on the panel's own machine or a private network; notifications go only to public push services (an admin can allow a self-hosted one with --push-private-hosts).",
  keysInvalid:
    "The subscription's keys are not valid: p256dh must be a P-256 public key and auth 16 bytes, both base64url.",
  subscriptionRequired: "A subscription (endpoint and keys) is required.",
  nameInvalid: (max: number) => `A device name must be 1 to ${max} characters.`,
  eventsInvalid: `Events must be a list of: ${ALERT_EVENTS.join(", ")}.`,
  serversInvalid: "Servers must be null (every server) or a list of server ids.",
  quietHoursInvalid:
    'Quiet hours need a start and an end as "HH:MM" and a time zone such as "Europe/Berlin", or null.',
  deviceNotFound: "No such device. It may have been removed already.",
  tooManyDevices: (max: number) => `You already have ${max} devices with notifications. Remove one first.`,
  deviceRemoved: "Notifications are off for this device.",
  noDevices: "You have no devices with notifications yet. Enable them on this device first.",

  titleStarted: "Factorio server started",
  titleStopped: "Factorio server stopped",
  titleCrashed: "Factorio server crashed",
  titleUpdate: "Factorio update available",
  titleStartFailed: "Factorio server failed to start",
  titleStillDown: "Factorio server still down",
  titleRunningAgain: "Factorio server is running again",
  titleTest: "Test notification",
  bodyTest: "Notifications from Factorio Panel work on this device.",

  offline: (label: string, time: string) => `Offline - last known: ${label}, ${time}`,
  offlineNothingKnown: "Offline - no server status seen yet",
  offlineHint: "Actions need a connection. The panel reconnects by itself.",
  needsConnection: "No connection to the panel: this needs a connection.",
  updateAvailable: "New version available",
} as const;

/** Alert channels (Notifications page) and their errors. */
export const CHANNEL_MSG = {
  typeInvalid: `Type must be one of: ${CHANNEL_TYPES.join(", ")}.`,
  nameInvalid: (max: number) => `A channel name must be 1 to ${max} characters.`,
  urlInvalid: "The URL must be a full http:// or https:// address without a user name or password.",
  urlMissing: "Enter the channel's URL before switching it on.",
  topicMissing: "Enter the ntfy topic before switching the channel on.",
  topicInvalid: "An ntfy topic is 1 to 64 letters, digits, - or _.",
  priorityInvalid: "Priority must be a whole number from 1 (min) to 5 (max).",
  tokenInvalid: "The token must be at most 200 characters, without spaces.",
  enabledInvalid: "enabled must be true or false.",
  notFound: "No such channel. It may have been deleted already.",
  tooMany: (max: number) => `There are already ${max} channels. Delete one first.`,
  deleted: (name: string) => `Channel ${name} deleted.`,
  titleTest: "Test alert",
  bodyTest: "Alerts from Factorio Panel reach this channel.",
} as const;
