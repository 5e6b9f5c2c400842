/**
 * Chinese prose for tests of token budgets: a character of it is about one o200k token, three to
 * four times an English one, so it is what passes a window that English text fits.
 */
const SUBJECTS = ['市政府', '研究团队', '港口管理局', '当地居民', '交通部门', '专家组', '工程师们', '记者'];
const VERBS = ['公布了', '讨论了', '调查了', '记录了', '比较了', '评估了', '总结了', '回顾了'];
const OBJECTS = [
  '大桥的每日车流量',
  '渡轮时刻表的变化',
  '潮汐对航运的影响',
  '新隧道的建设费用',
  '过去十年的通勤数据',
  '夜间施工的噪音问题',
  '公共交通的票价调整',
  '沿海公路的维修计划',
];

/** Varied sentences (no two paragraphs alike), so the reader keeps them and the tokenizer cannot fold them. */
export function chineseParagraph(page: number, index: number): string {
  return [0, 1, 2]
    .map((k) => {
      const i = index * 3 + k;
      return `${SUBJECTS[(i * 3 + page) % 8]}在${2000 + ((i * 7 + page) % 26)}年${VERBS[(i * 5 + page) % 8]}${OBJECTS[(i + page * 2) % 8]}，报告指出第${i + 1}项数据比预期高出百分之${((i * 13 + page * 7) % 90) + 5}。`;
    })
    .join('');
}
