/**
 * Random bytes made text: hex, the alphabets of Random::Formatter and
 * UUIDs (versions 4 and 7), written straight into byte arrays. May import
 * {@code fastrandom.random}.
 */
package fastrandom.text;
