/** The version of the interfaces described (the `/api/v1/` and `/admin/v1/` generation), not of a package. */
export const VERSION = '1.0.0';
