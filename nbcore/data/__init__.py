"""The datasets of the book (read by nbcore.datasets): small CSV tables, and the SMS Spam
Collection as published, with its attribution in SMSSpamCollection.README.md."""
