/** The languages Scout speaks (the seeds' Simplified Chinese, and English). */
export type Locale = 'en' | 'zh';
