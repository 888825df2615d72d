"""Languages: BCP 47 tags, language identification, sentence splitting."""
