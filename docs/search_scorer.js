// The site's search ranking (conf.py: html_search_scorer). Sphinx's defaults, plus one rule: a
// benchmark page shows every framework's code for a step side by side, so a search for an API name
// (Conv2d, GRU, hybridize) lists it before the one-framework notebook copies of the same code.
// Sphinx replaces its whole Scorer with this one: the fields below are its defaults (Sphinx 9).
var Scorer = {
  score: (result) => {
    const [docname, , , , score] = result;
    return docname.startsWith("_gen/benchmarks/") ? 2 * score : score;
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
