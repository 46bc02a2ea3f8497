"""What the scheduler runs, apart from its loop (`bot.scheduler`: when jobs fall due, and their claims).

posters.py  the scheduler's port to the platforms: Poster, DeliveryFailed, one poster per platform
jobs.py     the job bodies: posting the day's question, the reveal, the tally edit, a reminder
"""
