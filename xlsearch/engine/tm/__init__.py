"""Translation memory: CAT fuzzy %, lookup and its candidates, analysis, documents to translate."""
