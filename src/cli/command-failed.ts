/** A command that could not do what it was asked, for a reason its message gives in one line (not a usage mistake). */
export class CommandFailed extends Error {}
