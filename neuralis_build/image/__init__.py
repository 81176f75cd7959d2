"""The image build: install many packages into one host image, judge them together, and report every refusal."""
