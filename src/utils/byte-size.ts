const units = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** A size in powers of 1024, as `ls -h`, file managers and the limits' MB count it: its number and unit. */
export function scaleBytes(bytes: number): { size: number; unit: (typeof units)[number] } {
  let size = bytes;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit += 1;
  }
  return { size, unit: units[unit]! };
}

/** A size as a terminal shows it: `900 B`, `12.5 KB`, `1.0 GB`. */
export function byteSize(bytes: number): string {
  const { size, unit } = scaleBytes(bytes);
  return unit === 'B' ? `${bytes} B` : `${size.toFixed(1)} ${unit}`;
}
