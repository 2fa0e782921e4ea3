"""Domain objects and their queries (context first). Never imports api or conductor."""
